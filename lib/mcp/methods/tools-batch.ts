import { z } from "zod";
import { toMcpError, type McpError } from "../../jsonrpc";
import { parseOrInvalidParams } from "../runtime/validate";
import type { MethodHandler } from "./method-env";
import { callTool } from "./tools";
import { BatchProgress } from "./batch-progress";

/**
 * tools/batch (seed 001 §parallel tool execution — an extension, not part of MCP): several tool
 * calls in one request, run in parallel, each answered on its own — a result or an error — and
 * each authorized and rate-limited as if it had come alone (the transport's `admit`). Their
 * progress, under the request's one progressToken, is reported as one sum (batch-progress.ts).
 */
export const DEFAULT_MAX_TOOL_BATCH = 10;

const Call = z.looseObject({
  name: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

function errorObject(error: McpError): Record<string, unknown> {
  return { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
}

export const batchTools: MethodHandler = async (env, call) => {
  const max = env.maxToolBatch ?? DEFAULT_MAX_TOOL_BATCH;
  const { calls } = parseOrInvalidParams(z.looseObject({ calls: z.array(Call).min(1).max(max) }), call.params);
  const progress = new BatchProgress(call.scope.channel, calls.length);
  const results = await Promise.all(
    calls.map(async (one, index) => {
      const params = { name: one.name, ...(one.arguments ? { arguments: one.arguments } : {}) };
      try {
        const refusal = call.admit ? await call.admit("tools/call", params) : undefined;
        if (refusal) return { name: one.name, error: errorObject(refusal) };
        return { name: one.name, result: await callTool(env, { ...call, params, scope: progress.scopeFor(call.scope, index) }) };
      } catch (thrown) {
        return { name: one.name, error: errorObject(toMcpError(thrown)) };
      }
    }),
  );
  return { results };
};
