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
  const bounded = new BoundedScope(scope);
  const outcome = start(bounded);
  if (!(outcome instanceof Promise)) return outcome;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const expired = new ToolTimeout(ms);
      bounded.expire(expired);
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

/**
 * The caller's scope with the time limit's own signal. A class with its getters on the
 * prototype and the caller's fields copied. Not an object literal with getters: V8 builds one in
 * dictionary mode, and each kept what its getters close over alive through the next scavenge,
 * which promoted it all (bench/PROFILING.md, round 9); nor Object.create(scope, descriptors),
 * which also leaves a dictionary-mode object every later read pays for.
 */
class BoundedScope implements CallScope {
  readonly requestId: CallScope["requestId"];
  readonly onProgress: CallScope["onProgress"];
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  readonly auth: CallScope["auth"];
  readonly meta: CallScope["meta"];
  readonly clientCapabilities: CallScope["clientCapabilities"];
  readonly logThreshold: CallScope["logThreshold"];
  readonly channel: CallScope["channel"];
  private controller: AbortController | undefined;
  private expired: ToolTimeout | undefined;

  constructor(private readonly outer: CallScope) {
    this.requestId = outer.requestId;
    this.onProgress = outer.onProgress;
    this.protocolVersion = outer.protocolVersion;
    this.sessionId = outer.sessionId;
    this.auth = outer.auth;
    this.meta = outer.meta;
    this.clientCapabilities = outer.clientCapabilities;
    this.logThreshold = outer.logThreshold;
    this.channel = outer.channel;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const own = new AbortController();
      this.controller = own;
      const outer = this.outer.signal;
      if (this.expired) own.abort(this.expired);
      else if (outer.aborted) own.abort(outer.reason);
      else outer.addEventListener("abort", () => own.abort(outer.reason), { once: true });
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.expired !== undefined || this.outer.aborted;
  }

  // Read through, not copied: the caller's scope works it out only if someone asks (call-scope.ts).
  get clientAddress(): string {
    return this.outer.clientAddress;
  }

  /** The time is up: the handler's signal (if it took one) fires with the ToolTimeout. */
  expire(reason: ToolTimeout): void {
    this.expired = reason;
    this.controller?.abort(reason);
  }
}
