import type { AuthInfo } from "../../auth/auth-info";

/**
 * How one tools/call ended, as an audit log or metrics see it:
 * - ok: a result; tool_error: an `isError: true` result (server/tools §error handling);
 * - protocol_error: a JSON-RPC error (bad arguments, a missing client capability…);
 * - input_required: paused for client input (2026-07-28 multi-round-trip); it runs again later;
 * - cancelled: the caller went away or cancelled before it finished.
 */
export type ToolCallOutcome = "ok" | "tool_error" | "protocol_error" | "input_required" | "cancelled";

export interface ToolCallRecord {
  tool: string;
  auth: AuthInfo | undefined;
  /**
   * The validated arguments. Observers must not persist them as they are (they may hold secrets);
   * keeping the record in memory until a batch is written is fine.
   */
  arguments: Readonly<Record<string, unknown>>;
  durationMs: number;
  outcome: ToolCallOutcome;
}

/** Called once per finished call, after the result is known; it must neither block nor throw. */
export type ToolCallObserver = (record: ToolCallRecord) => void;
