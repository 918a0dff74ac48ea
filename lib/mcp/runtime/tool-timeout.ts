import type { CallScope } from "./handler-context";
import { ToolError } from "./tool-error";

/** A tool that did not finish within MCP_TOOL_TIMEOUT_MS: an isError result the model can read. */
export class ToolTimeout extends ToolError {
  override name = "ToolTimeout";
  constructor(readonly ms: number) {
    super(`The tool did not finish within ${ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`} and was stopped`, "timeout");
  }
}

/**
 * Runs a handler with a time limit: when it is up, the handler's signal fires (reason: a
 * ToolTimeout) and the call settles with that error whether or not the handler ever does — a
 * handler that never resolves cannot hold a request (and a serverless function) open. The
 * handler's signal stays lazy, as on the untimed path: it is made only if the handler reads it.
 */
export function withTimeLimit<T>(scope: CallScope, ms: number, start: (scope: CallScope) => T | Promise<T>): T | Promise<T> {
  let expired: ToolTimeout | undefined;
  let controller: AbortController | undefined;
  // A plain literal with the caller's fields copied, not Object.create(scope, descriptors): that
  // leaves a dictionary-mode object every later property read on the hot path pays for.
  const bounded: CallScope = {
    requestId: scope.requestId,
    onProgress: scope.onProgress,
    protocolVersion: scope.protocolVersion,
    sessionId: scope.sessionId,
    auth: scope.auth,
    clientAddress: scope.clientAddress,
    meta: scope.meta,
    clientCapabilities: scope.clientCapabilities,
    logThreshold: scope.logThreshold,
    channel: scope.channel,
    get signal(): AbortSignal {
      if (!controller) {
        const own = new AbortController();
        controller = own;
        const outer = scope.signal;
        if (expired) own.abort(expired);
        else if (outer.aborted) own.abort(outer.reason);
        else outer.addEventListener("abort", () => own.abort(outer.reason), { once: true });
      }
      return controller.signal;
    },
    get aborted() {
      return expired !== undefined || scope.aborted;
    },
  };
  const outcome = start(bounded);
  if (!(outcome instanceof Promise)) return outcome;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      expired = new ToolTimeout(ms);
      controller?.abort(expired);
      reject(expired);
    }, ms);
    outcome.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
