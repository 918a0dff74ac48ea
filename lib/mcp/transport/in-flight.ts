import type { JsonRpcId } from "../../jsonrpc";
import type { LazyAbort } from "./lazy-abort";

/**
 * Requests being handled, so notifications/cancelled (basic/utilities/cancellation) can abort
 * them. Keyed by the caller's scope (session, else subject) and the request id, because ids are
 * only unique per client.
 */
export class InFlightRequests {
  private readonly running = new Map<string, LazyAbort>();

  private key(scope: string, id: JsonRpcId): string {
    return `${scope}\u0000${typeof id}:${id}`;
  }

  /**
   * Register a running request. A duplicate id in the same scope is not registered: the first
   * one stays the one a cancellation names, and the newcomer simply cannot be cancelled by id.
   */
  start(scope: string, id: JsonRpcId, controller: LazyAbort): () => void {
    const key = this.key(scope, id);
    if (this.running.has(key)) return () => undefined;
    this.running.set(key, controller);
    return () => {
      if (this.running.get(key) === controller) this.running.delete(key);
    };
  }

  /** Abort everything running in these scopes (sessions that were ended), in one pass. */
  cancelScopes(scopes: ReadonlySet<string>, reason: string): void {
    for (const [key, controller] of this.running) {
      if (scopes.has(key.slice(0, key.indexOf("\u0000")))) controller.abort(new CancelledError(reason));
    }
  }

  cancel(scope: string, id: JsonRpcId, reason: string): boolean {
    const controller = this.running.get(this.key(scope, id));
    if (!controller) return false;
    controller.abort(new CancelledError(reason));
    return true;
  }
}

/** The abort reason when a client cancelled; such requests get no response (cancellation §behavior). */
export class CancelledError extends Error {
  override readonly name = "CancelledError";
}
