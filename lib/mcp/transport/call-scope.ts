import type { JsonRpcRequest } from "../../jsonrpc";
import type { CallScope } from "../runtime/handler-context";
import type { LazyAbort } from "./lazy-abort";
import { readRequestMeta } from "./request-meta";

/** What an era knows of a call beyond its message and its cancellation. */
export type CallFacts = Omit<CallScope, "requestId" | "signal" | "aborted" | "meta">;

/**
 * The scope a dispatched call runs in, the same for both eras. Cancellation is read through the
 * getters, so the (lazy) AbortSignal is only created when a handler asks for it.
 */
export function callScopeOf(message: JsonRpcRequest, abort: LazyAbort, facts: CallFacts): CallScope {
  return {
    requestId: message.id,
    get signal() {
      return abort.signal;
    },
    get aborted() {
      return abort.aborted;
    },
    meta: readRequestMeta(message.params),
    ...facts,
  };
}
