import { randomUUID } from "node:crypto";
import { McpError, type JsonRpcResponse } from "../../jsonrpc";

interface Pending {
  sessionId: string | undefined;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Server → client requests waiting for the client's answer, which arrives as a separate POST
 * (basic/transports §sending messages to the server). Answers are matched by id and by session,
 * so one client cannot answer another's question.
 */
export class PendingRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly timeoutMs: number) {}

  /**
   * Register a question; returns its id and a promise of the client's result. `onTimeout` runs
   * when no answer came in time, just before the promise rejects: the asker tells the client it
   * stopped waiting (basic/lifecycle §timeouts: the sender SHOULD issue a cancellation notification).
   */
  open(sessionId: string | undefined, signal: AbortSignal, onTimeout?: (id: string) => void): { id: string; answer: Promise<unknown> } {
    const id = `srv-${randomUUID()}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const onAbort = () => {
        settle();
        reject(new McpError(-32603, "Request cancelled"));
      };
      const timer = setTimeout(() => {
        settle();
        onTimeout?.(id);
        reject(new McpError(-32603, "The client did not answer in time"));
      }, this.timeoutMs);
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
        timer,
      });
    });
    return { id, answer };
  }

  /** Refuse every open question of these sessions (they were ended), in one pass. */
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
