import { logUnexpected } from "../../mcp/runtime/request-log";
import type { AuditRow } from "./tool-call-audit";

/**
 * Audit rows are kept MCP_AUDIT_RETENTION_DAYS, then deleted: without it the table grew by one row
 * per tools/call forever (outside audit). The deletion rides on the audit's own batched writes,
 * after the response like them, at most once per PRUNE_INTERVAL_MS per process and a bounded
 * number of rows per pass, so no request waits for it and no statement holds the table for long.
 * Every instance prunes on its own: the statement is idempotent, and with nothing to delete it is
 * one lookup in the createdAt index.
 */

export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Rows one statement deletes, and statements one pass runs: a backlog clears over several passes. */
export const ROWS_PER_STATEMENT = 5_000;
export const STATEMENTS_PER_PASS = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  retentionDays: number;
  insert(rows: AuditRow[]): Promise<void>;
  deleteBefore(cutoff: Date, limit: number): Promise<number>;
  now?: () => number;
}

/** The audit sink's `write`: the batch, then the expired rows when a pass is due. */
export function writerWithRetention(options: RetentionOptions): (rows: AuditRow[]) => Promise<void> {
  const now = options.now ?? Date.now;
  let lastPass = -Infinity;
  return async (rows) => {
    await options.insert(rows);
    if (options.retentionDays === 0 || now() - lastPass < PRUNE_INTERVAL_MS) return;
    lastPass = now();
    const cutoff = new Date(lastPass - options.retentionDays * DAY_MS);
    try {
      for (let i = 0; i < STATEMENTS_PER_PASS; i++) {
        if ((await options.deleteBefore(cutoff, ROWS_PER_STATEMENT)) < ROWS_PER_STATEMENT) return;
      }
    } catch (thrown) {
      // The batch is written; a failed pass is retried at the next interval.
      logUnexpected("audit: deleting rows past MCP_AUDIT_RETENTION_DAYS", thrown);
    }
  };
}
