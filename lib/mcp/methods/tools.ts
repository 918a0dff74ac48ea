import { z } from "zod";
import { McpError } from "../../jsonrpc";
import { createHandlerContext } from "../handler-context";
import { parseOrInvalidParams } from "../validate";
import type { CallToolResult } from "../types";
import type { MethodHandler } from "./method-env";
import type { CompiledTool } from "../registry";
import { InputRequired, ProtocolError } from "../protocol-error";
import { CursorParams } from "./list-params";

const CallToolParams = z.looseObject({
  name: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

export const listTools: MethodHandler = (env, { params }) => {
  const { cursor } = parseOrInvalidParams(CursorParams, params);
  return env.registry.listToolsResult(cursor);
};

/** The first line of an error's message, bounded: enough for a model to correct itself, no stack. */
function describeFailure(thrown: unknown): string {
  if (thrown instanceof Error && thrown.message) {
    const line = thrown.message.split("\n", 1)[0] ?? "";
    return line.length > 500 ? `${line.slice(0, 500)}…` : line;
  }
  return "Tool execution failed";
}

function failedResult(thrown: unknown): Record<string, unknown> {
  // Protocol-level outcomes pass through: a URL elicitation demand (2025-11-25 client/elicitation),
  // a missing client capability or malformed client answer, and a pause for client input (MRTR).
  if (thrown instanceof ProtocolError || thrown instanceof InputRequired) throw thrown;
  if (thrown instanceof McpError && thrown.code === -32042) throw thrown;
  // server/tools §error handling: execution failures go back as isError results the model can read.
  return { content: [{ type: "text", text: describeFailure(thrown) }], isError: true };
}

function finishedResult(tool: CompiledTool, result: CallToolResult): Record<string, unknown> {
  if (tool.definition.output && !result.isError) {
    const checked = tool.definition.output.safeParse(result.structuredContent);
    if (!checked.success) {
      throw McpError.internal(`Tool ${tool.definition.name} returned structuredContent that does not match its outputSchema`);
    }
  }
  // server/tools §structured content: also serialize it as text for clients that read only content.
  if (result.structuredContent !== undefined && result.content.length === 0) {
    return { ...result, content: [{ type: "text", text: JSON.stringify(result.structuredContent) }] };
  }
  return { ...result };
}

/** tools/call. A synchronous tool is answered synchronously (no promise hops on the hot path). */
export const callTool: MethodHandler = (env, { params, scope }) => {
  const { name, arguments: rawArgs } = parseOrInvalidParams(CallToolParams, params);
  const tool = env.registry.getTool(name);
  // server/tools §error handling: an unknown tool is a protocol error (-32602).
  if (!tool) throw McpError.invalidParams(`Unknown tool: ${name}`, { name });
  const args = parseOrInvalidParams(tool.definition.input, rawArgs ?? {}, `arguments for tool ${name}`);

  let outcome: CallToolResult | Promise<CallToolResult>;
  try {
    outcome = tool.definition.handler(args, createHandlerContext(scope));
  } catch (thrown) {
    return failedResult(thrown);
  }
  if (outcome instanceof Promise) return outcome.then((result) => finishedResult(tool, result), failedResult);
  return finishedResult(tool, outcome);
};
