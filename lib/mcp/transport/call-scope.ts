import type { AuthInfo } from "../../auth/auth-info";
import type { JsonRpcId, JsonRpcRequest } from "../../jsonrpc";
import type { CallChannel, CallScope, RequestMeta } from "../runtime/handler-context";
import type { LazyAbort } from "./lazy-abort";
import { readRequestMeta } from "./request-meta";

/** Where a call's client address is read from, on first use (the host: lib/http/handle-init.ts). */
export interface ClientAddressSource {
  readonly clientAddress: string;
}

/**
 * What an era knows of a call beyond its message and its cancellation. The client's address
 * comes as its source, not its value: only rate limits and task owners need it, and working it
 * out (trusted proxies, address parsing) is not free, so a plain call never does.
 */
export type CallFacts = Omit<CallScope, "requestId" | "signal" | "aborted" | "meta" | "clientAddress"> & { address: ClientAddressSource };

/**
 * The scope a dispatched call runs in, the same for both eras. Cancellation is read through the
 * getters, so the (lazy) AbortSignal is only created when a handler asks for it.
 */
export function callScopeOf(message: JsonRpcRequest, abort: LazyAbort, facts: CallFacts): CallScope {
  return new DispatchScope(message.id, readRequestMeta(message.params), abort, facts);
}

/**
 * A class with its getters on the prototype, not an object literal with getters: V8 builds such a
 * literal in dictionary mode, and each one kept what its getters close over (the call's
 * exchange and Response) alive through the next scavenge, which promoted it all
 * (bench/PROFILING.md, round 9).
 */
class DispatchScope implements CallScope {
  readonly onProgress?: (progress: number, total: number | undefined) => void;
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  private readonly address: ClientAddressSource;
  readonly clientCapabilities: Record<string, unknown> | undefined;
  readonly logThreshold: CallScope["logThreshold"];
  readonly channel: CallChannel;
  readonly continueAsTask?: () => Promise<void>;

  constructor(
    readonly requestId: JsonRpcId,
    readonly meta: RequestMeta,
    private readonly abort: LazyAbort,
    facts: CallFacts,
  ) {
    // Every field set in every instance, in one order: one hidden class for all scopes.
    this.onProgress = facts.onProgress;
    this.protocolVersion = facts.protocolVersion;
    this.sessionId = facts.sessionId;
    this.auth = facts.auth;
    this.address = facts.address;
    this.clientCapabilities = facts.clientCapabilities;
    this.logThreshold = facts.logThreshold;
    this.channel = facts.channel;
    this.continueAsTask = facts.continueAsTask;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get clientAddress(): string {
    return this.address.clientAddress;
  }

  get aborted(): boolean {
    return this.abort.aborted;
  }
}
