import { randomUUID } from "node:crypto";
import { McpError, type JsonRpcResponse } from "../../jsonrpc";
import type { LazyAbort } from "./lazy-abort";

/**
 * Told when the server stops waiting for a question's answer, before its promise rejects: the
 * asker sends notifications/cancelled naming it (basic/utilities/cancellation: either side may
 * cancel a request it sent; basic/lifecycle §timeouts).
 */
export type OnWithdrawn = (id: string, reason: string) => void;

interface Pending {
  sessionId: string | undefined;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  /** Stop waiting without an answer: tell the client, then fail the asker. */
  withdraw: (reason: string) => void;
}

const TIMED_OUT = "The client did not answer in time";
const CALL_CANCELLED = "The request that asked this was cancelled";
const CALL_ENDED = "The request that asked this has ended";

/**
 * Server → client requests waiting for the client's answer, which arrives as a separate POST
 * (basic/transports §sending messages to the server). Answers are matched by id and by session,
 * so one client cannot answer another's question. A question is withdrawn, with `onWithdrawn`,
 * when it times out, when its call is cancelled, and when its call ends without it (endCall).
 */
export class PendingRequests {
  private readonly pending = new Map<string, Pending>();
  /** The open questions of each asking call (its abort switch names it), for endCall. */
  private readonly byCall = new Map<LazyAbort, Set<string>>();

  constructor(private readonly timeoutMs: number) {}

  /**
   * Register a question of the call `call`; returns its id and a promise of the client's result.
   * `signal` is the handler's (the call's, or a tool time limit's that follows it).
   */
  open(sessionId: string | undefined, call: LazyAbort, signal: AbortSignal, onWithdrawn?: OnWithdrawn): { id: string; answer: Promise<unknown> } {
    const id = `srv-${randomUUID()}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.pending.delete(id);
        const asked = this.byCall.get(call);
        asked?.delete(id);
        if (asked?.size === 0) this.byCall.delete(call);
      };
      const withdraw = (reason: string) => {
        settle();
        onWithdrawn?.(id, reason);
        reject(new McpError(-32603, reason));
      };
      const onAbort = () => withdraw(CALL_CANCELLED);
      const timer = setTimeout(() => withdraw(TIMED_OUT), this.timeoutMs);
      timer.unref?.();
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        sessionId,
        resolve: (r) => {
          settle();
          resolve(r);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
        withdraw,
      });
      const asked = this.byCall.get(call) ?? new Set<string>();
      asked.add(id);
      this.byCall.set(call, asked);
    });
    return { id, answer };
  }

  /**
   * The call was answered (a result or an error): the questions it left open are withdrawn, so
   * the client stops showing them and answers nothing that is over.
   */
  endCall(call: LazyAbort): void {
    const asked = this.byCall.get(call);
    if (!asked) return;
    for (const id of [...asked]) this.pending.get(id)?.withdraw(CALL_ENDED);
  }

  /** Refuse every open question of these sessions (they were ended: nobody is left to tell), in one pass. */
  rejectSessions(sessionIds: ReadonlySet<string>, reason: string): void {
    for (const entry of [...this.pending.values()]) {
      if (entry.sessionId !== undefined && sessionIds.has(entry.sessionId)) entry.reject(new McpError(-32603, reason));
    }
  }

  /** Deliver a client's response. Returns false if nothing was waiting for it (or not from this session). */
  settle(message: JsonRpcResponse, sessionId: string | undefined): boolean {
    if (typeof message.id !== "string") return false;
    const entry = this.pending.get(message.id);
    if (!entry || entry.sessionId !== sessionId) return false;
    if ("result" in message) entry.resolve(message.result);
    else entry.reject(new McpError(message.error.code, message.error.message, message.error.data));
    return true;
  }
}
