import { z } from "zod";
import { ErrorCode, McpError } from "../../jsonrpc";
import { createHandlerContext } from "../runtime/handler-context";
import { checkArguments, describeIssues, parseOrInvalidParams, type IssueReport } from "../runtime/validate";
import type { CallToolResult } from "../protocol/types";
import type { MethodEnv, MethodHandler } from "./method-env";
import { closestName } from "../../text/closest-name";
import type { CompiledTool } from "../registry";
import { InputRequired, ProtocolError } from "../protocol/protocol-error";
import { CursorParams } from "./list-params";
import { listForRevision } from "./list-by-revision";
import { contentForRevision } from "./content-by-revision";
import type { CallScope } from "../runtime/handler-context";
import type { ToolCallObserver, ToolCallOutcome } from "../runtime/tool-call-observer";
import { errorReference, logUnexpected, unexpectedFailureText } from "../runtime/request-log";
import { decideAccess, signInResult } from "../policy/access";
import { ToolError, toolErrorResult } from "../runtime/tool-error";
import { withTimeLimit } from "../runtime/tool-timeout";
import { isStatelessEraVersion, reportsInvalidArgumentsAsToolErrors } from "../protocol/protocol-versions";
import { callAsTask } from "../tasks/call-as-task";
import { taskOwnerOf } from "../tasks/owner";
import { LEGACY_TASKS_VERSION, TASKS_EXTENSION, declaresTasks } from "../tasks/wire";
import type { TaskEnding } from "../tasks/store";
import { cutText } from "../../text/cut-text";

const isPlainRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const MAX_TOOL_NAME = 128;

/**
 * tools/call's own params. `arguments` is checked to be an object, not copied key by key as a
 * z.record would (two parse payloads per key, on every call): the tool's input schema reads it next.
 * Other params (`_meta`, `task`…) are read where they are used.
 */
const CallToolParams = z.object({
  name: z.string().min(1).max(MAX_TOOL_NAME),
  arguments: z.custom<Record<string, unknown>>(isPlainRecord, { error: "Invalid input: expected an object" }).optional(),
});

type CallToolParamsShape = z.infer<typeof CallToolParams>;

/**
 * The params of a well-formed call, read by hand (every tools/call pays for this check); anything
 * else goes through CallToolParams, whose issues become the -32602 (the same pattern as the 2026
 * `_meta` check, request-checks.ts). Accepts exactly what the schema accepts.
 */
function callToolParams(params: Record<string, unknown>): CallToolParamsShape {
  const { name, arguments: args } = params;
  if (typeof name === "string" && name.length >= 1 && name.length <= MAX_TOOL_NAME && (args === undefined || isPlainRecord(args))) return { name, arguments: args };
  return parseOrInvalidParams(CallToolParams, params);
}

export const listTools: MethodHandler = (env, { params, scope }) => {
  const { cursor } = parseOrInvalidParams(CursorParams, params);
  return listForRevision(env.registry.listToolsResult(cursor), "tools", scope.protocolVersion);
};

/** The first line of a message the server wrote for the model (ToolError, McpError), bounded, no stack. */
function describeKnownFailure(thrown: ToolError | McpError): string {
  const line = thrown.message.split("\n").find((l) => l.trim().length > 0)?.trim();
  if (!line) return "Tool execution failed";
  return line.length > 500 ? `${cutText(line, 500)}…` : line;
}

function failedResult(thrown: unknown, scope: CallScope): Record<string, unknown> {
  // Protocol-level outcomes pass through: a URL elicitation demand (2025-11-25 client/elicitation),
  // a missing client capability or malformed client answer, and a pause for client input (MRTR).
  if (thrown instanceof ProtocolError || thrown instanceof InputRequired) throw thrown;
  if (thrown instanceof McpError && thrown.code === -32042) throw thrown;
  // server/tools §error handling: execution failures go back as isError results the model can read.
  // A ToolError is written for the model; an McpError is the server's own (a client that did not
  // declare a capability, declined or timed out): both are read and acted on.
  // Either way the result carries a code and a reference id in structuredContent (tool-error.ts).
  if (thrown instanceof ToolError) return { ...toolErrorResult(thrown.code, describeKnownFailure(thrown)) };
  if (thrown instanceof McpError) return { ...toolErrorResult("client_request_failed", describeKnownFailure(thrown)) };
  // Anything else is unexpected: its text may name tables, queries or hosts (a Prisma message
  // quotes the whole invocation), so the client gets a reference and the log gets the detail.
  // A cancelled call's handler stops by throwing: expected, not worth a log line.
  const reference = errorReference();
  if (!scope.aborted) {
    logUnexpected(`tool (reference ${reference})`, thrown);
    // A client that asked for logs sees it at level error too, by the same reference only. The
    // message is emitted synchronously, so it precedes the result; a closed channel loses nothing.
    createHandlerContext(scope)
      .log("error", unexpectedFailureText(reference), undefined, { askedOnly: true })
      .catch(() => undefined);
  }
  return { ...toolErrorResult("internal", unexpectedFailureText(reference), { id: reference }) };
}

function finishedResult(tool: CompiledTool, result: CallToolResult, version: string): Record<string, unknown> {
  return contentForRevision(checkedResult(tool, result), version);
}

function checkedResult(tool: CompiledTool, result: CallToolResult): Record<string, unknown> {
  // A handler typed loosely (plain JavaScript, a cast) may return anything: say what, as for a
  // mismatched outputSchema below, not "Cannot read properties of undefined" (outside probe).
  if (typeof result !== "object" || result === null || !Array.isArray(result.content)) {
    throw McpError.internal(`Tool ${tool.definition.name} returned ${result === null ? "null" : typeof result === "object" ? "an object without a content array" : typeof result} instead of a result with a content array`);
  }
  let structuredContent = result.structuredContent;
  // An output schema describes successful results (server/tools §output schema); an isError
  // result's structuredContent is the error envelope instead (tool-error.ts).
  if (tool.definition.output && !result.isError) {
    const checked = tool.definition.output.safeParse(structuredContent);
    if (!checked.success) {
      throw McpError.internal(`Tool ${tool.definition.name} returned structuredContent that does not match its outputSchema`);
    }
    // The parsed value, not the handler's: the published outputSchema is the output side's
    // (additionalProperties: false, defaults required), which a handler's extra keys (a spread
    // database row) would break for a client that validates it, though zod passed them.
    structuredContent = checked.data as CallToolResult["structuredContent"];
  }
  if (structuredContent === undefined) return { ...result };
  // server/tools §structured content: also serialize it as text for clients that read only content.
  if (result.content.length === 0) return { ...result, structuredContent, content: [{ type: "text", text: JSON.stringify(structuredContent) }] };
  return { ...result, structuredContent };
}

/** The -32602 for a tool name nobody registered, pointing at tools/list and at a near miss. */
function unknownTool(env: MethodEnv, name: string): McpError {
  const near = closestName(name, env.registry.toolNames());
  return McpError.invalidParams(`Unknown tool: ${name}.${near ? ` Did you mean ${near}?` : ""} tools/list names the tools.`, { name });
}

/** tools/call. A synchronous tool is answered synchronously (no promise hops on the hot path). */
export const callTool: MethodHandler = (env, { params, scope }) => {
  const { name, arguments: rawArgs } = callToolParams(params);
  const tool = env.registry.getTool(name);
  // server/tools §error handling: an unknown tool is a protocol error (-32602).
  if (!tool) throw unknownTool(env, name);
  // Mixed mode: an anonymous caller of a tool that needs a token learns how to sign in (the
  // transport already refused tokens without the scopes: 403, authorize.ts).
  if (env.access && !scope.auth) {
    const decision = decideAccess(tool.security, undefined);
    if (decision.kind === "sign_in") return { ...signInResult(env.access, name, decision.scopes) };
  }
  const checked = checkArguments(tool.definition.input, rawArgs ?? {});
  if (!checked.success) return refuseArguments(env, tool, rawArgs ?? {}, checked.issues, scope, params);
  const args = checked.data;
  const execution = tool.definition.execution;
  if (execution) {
    // SEP-2663 §required capabilities: tasks are offered in 2026-07-28, to a request that declares the extension.
    const modern = isStatelessEraVersion(scope.protocolVersion);
    const asTask = env.tasks !== undefined && modern && declaresTasks(scope.clientCapabilities);
    if (asTask && env.tasks) return callToolAsTask(env, env.tasks, tool, args, scope, false);
    // 2025-11-25 basic/utilities/tasks: the client asks for a task with the `task` param.
    if (env.tasks && wantsLegacyTask(scope, params)) return callToolAsTask(env, env.tasks, tool, args, scope, true);
    if (execution.taskSupport === "required") {
      // 2025-11-25 server/tools §execution: a required-task tool called plainly is -32601 (tasks
      // are not offered in that era); 2026-07-28 names the missing extension (-32021, SEP-2663).
      if (!modern) throw McpError.methodNotFound(`tools/call of ${name} without a task`);
      throw new ProtocolError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: the tool ${name} runs only as a task (${TASKS_EXTENSION})`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
  }
  // 2025-11-25 server/tools §execution: a task asked of a tool that does not support tasks is -32601.
  if (env.tasks && wantsLegacyTask(scope, params)) throw McpError.methodNotFound(`tools/call of ${name} as a task`);
  const observe = env.onToolCall ? new CallObserver(env.onToolCall, name, args, scope) : undefined;

  let outcome: CallToolResult | Promise<CallToolResult>;
  try {
    const run = (bounded: CallScope) => tool.definition.handler(args, createHandlerContext(bounded, env.locales, env.publishResourceUpdate));
    outcome = env.toolTimeoutMs ? withTimeLimit(scope, env.toolTimeoutMs, run) : run(scope);
  } catch (thrown) {
    return observe ? observe.settled(() => failedResult(thrown, scope)) : failedResult(thrown, scope);
  }
  if (outcome instanceof Promise) {
    const answer = outcome.then((result) => finishedResult(tool, result, scope.protocolVersion), (thrown: unknown) => failedResult(thrown, scope));
    return observe ? answer.then((result) => observe.done(result), (thrown: unknown) => observe.failed(thrown)) : answer;
  }
  return observe ? observe.settled(() => finishedResult(tool, outcome, scope.protocolVersion)) : finishedResult(tool, outcome, scope.protocolVersion);
};

/**
 * Arguments the tool's input schema (or the control-character rule) refuses. server/tools §error
 * handling: through 2025-06-18 a protocol error, -32602 whose `data` lists each issue's path; from
 * 2025-11-25 on a tool execution error, an isError result (`invalid_argument`) whose message names
 * each path, so the model can correct the call. It is reported to `onToolCall` like any tool error.
 * A 2025-11-25 request that asked for a task still gets one, which ends with that result: a client
 * that asked for a task reads a CreateTaskResult (basic/utilities/tasks).
 */
function refuseArguments(
  env: Parameters<MethodHandler>[0],
  tool: CompiledTool,
  rawArgs: Record<string, unknown>,
  issues: IssueReport[],
  scope: CallScope,
  params: Record<string, unknown>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const name = tool.definition.name;
  if (!reportsInvalidArgumentsAsToolErrors(scope.protocolVersion)) throw McpError.invalidParams(`Invalid arguments for tool ${name}`, issues);
  const refusal = (): Record<string, unknown> => ({ ...toolErrorResult("invalid_argument", `Invalid arguments for tool ${name}: ${describeIssues(issues)}`) });
  if (env.tasks && tool.definition.execution && wantsLegacyTask(scope, params)) return callToolAsTask(env, env.tasks, tool, rawArgs, scope, true, refusal);
  return env.onToolCall ? new CallObserver(env.onToolCall, name, rawArgs, scope).settled(refusal) : refusal();
}

/**
 * tools/call as a durable task: the same handler, ctx, tool-error mapping and output check as a
 * plain call; the outcome lands in the task store and `onToolCall` hears of it when it ends.
 */
/**
 * 2025-11-25 basic/utilities/tasks: the `task` param, `{ ttl? }` in milliseconds (the schema's
 * `ttl?: number`). Receivers MAY override the requested ttl (§TTL and resource management), so
 * any non-negative number is accepted and the server's own ttl applies (reported in the task);
 * anything else is -32602.
 */
const LegacyTaskParam = z.looseObject({
  ttl: z.number().min(0, "ttl must be a non-negative number of milliseconds").optional(),
});

/** A 2025-11-25 request with a `task` param (the v1 opt-in; SEP-2663 ignores it): validated when present. */
function wantsLegacyTask(scope: CallScope, params: Record<string, unknown>): boolean {
  if (scope.protocolVersion !== LEGACY_TASKS_VERSION || !Object.hasOwn(params, "task")) return false;
  parseOrInvalidParams(LegacyTaskParam, params.task, "task");
  return true;
}

function callToolAsTask(
  env: Parameters<MethodHandler>[0],
  tasks: NonNullable<Parameters<MethodHandler>[0]["tasks"]>,
  tool: CompiledTool,
  args: Record<string, unknown>,
  scope: CallScope,
  legacy: boolean,
  /** The task's outcome when the handler must not run (arguments refused). */
  refusal?: () => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const started = performance.now();
  const ended = (ending: TaskEnding, cancelled: boolean) => {
    if (!env.onToolCall) return;
    const outcome: ToolCallOutcome = cancelled ? "cancelled" : ending.status === "completed" ? (ending.result.isError === true ? "tool_error" : "ok") : "protocol_error";
    try {
      env.onToolCall({ tool: tool.definition.name, auth: scope.auth, arguments: args, durationMs: Math.round(performance.now() - started), outcome });
    } catch (thrown) {
      logUnexpected("onToolCall", thrown);
    }
  };
  return callAsTask(tasks, scope, {
    owner: taskOwnerOf(scope.auth, scope.clientAddress, env.info.name),
    tool: tool.definition.name,
    args,
    atOnce: legacy || tool.definition.execution?.taskStarts !== "when_handler_asks",
    legacy,
    ended,
    run: async (taskScope) => {
      if (refusal) return refusal();
      let result: CallToolResult;
      try {
        // As on the plain path: a tool run as a task announces its writes to listen streams and sessions.
        result = await tool.definition.handler(args, createHandlerContext(taskScope, env.locales, env.publishResourceUpdate));
      } catch (thrown) {
        return failedResult(thrown, taskScope);
      }
      return finishedResult(tool, result, taskScope.protocolVersion);
    },
  });
}

/**
 * Reports how a call ended to `onToolCall`, passing the answer (or the thrown error) through. A
 * class, not closures over the call: every tools/call makes one (bench/PROFILING.md, round 12).
 */
class CallObserver {
  private readonly started = performance.now();

  constructor(
    private readonly onToolCall: ToolCallObserver,
    private readonly tool: string,
    private readonly args: Record<string, unknown>,
    private readonly scope: CallScope,
  ) {}

  done(result: Record<string, unknown>): Record<string, unknown> {
    this.report(result.isError === true ? "tool_error" : "ok");
    return result;
  }

  failed(thrown: unknown): never {
    this.report(thrown instanceof InputRequired ? "input_required" : "protocol_error");
    throw thrown;
  }

  /** The answer of a synchronous call, reported as done or failed. */
  settled(answer: () => Record<string, unknown>): Record<string, unknown> {
    let result: Record<string, unknown>;
    try {
      result = answer();
    } catch (thrown) {
      return this.failed(thrown);
    }
    return this.done(result);
  }

  private report(outcome: ToolCallOutcome): void {
    const { scope } = this;
    const durationMs = Math.round((performance.now() - this.started) * 100) / 100;
    try {
      this.onToolCall({ tool: this.tool, auth: scope.auth, arguments: this.args, durationMs, outcome: scope.aborted ? "cancelled" : outcome });
    } catch (thrown) {
      logUnexpected("onToolCall", thrown);
    }
  }
}
