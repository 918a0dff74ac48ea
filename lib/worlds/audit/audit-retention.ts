import { logUnexpected } from "../../log/operator-log";
import type { AuditRow } from "./tool-call-audit";

/**
 * Audit rows are kept MCP_AUDIT_RETENTION_DAYS, then deleted: without it the table grew by one row
 * per tools/call forever (outside audit). A pass starts after one of the audit's batched writes, at
 * most once per PRUNE_INTERVAL_MS per process, and runs beside the writes rather than in front of
 * them: a long first pass over a backlog must not hold up, or overflow, the queue of new rows. Its
 * statements are bounded, so none holds the table for long. Every instance prunes on its own: the
 * statement is idempotent, and with nothing to delete it is one lookup in the createdAt index. A
 * pass a serverless platform freezes halfway is finished, or repeated, later.
 */

export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Rows one statement deletes, and statements one pass runs: a backlog clears over several passes. */
export const ROWS_PER_STATEMENT = 5_000;
export const STATEMENTS_PER_PASS = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  retentionDays: number;
  insert(rows: AuditRow[]): Promise<void>;
  /** Deletes up to `limit` rows created before `cutoff`; how many went. */
  deleteBefore(cutoff: Date, limit: number): Promise<number>;
  now?: () => number;
}

export interface AuditRetention {
  /** The audit sink's `write`: the batch; then a pass, when one is due, started but not awaited. */
  write(rows: AuditRow[]): Promise<void>;
  /** Settles when no pass is running (tests). */
  idle(): Promise<void>;
}

export function auditRetention(options: RetentionOptions): AuditRetention {
  const now = options.now ?? Date.now;
  let lastPass = -Infinity;
  let running: Promise<void> | undefined;

  async function pass(cutoff: Date): Promise<void> {
    try {
      for (let i = 0; i < STATEMENTS_PER_PASS; i++) {
        if ((await options.deleteBefore(cutoff, ROWS_PER_STATEMENT)) < ROWS_PER_STATEMENT) return;
      }
    } catch (thrown) {
      // The batches are written; a failed pass is retried at the next interval.
      logUnexpected("audit: deleting rows past MCP_AUDIT_RETENTION_DAYS", thrown);
    }
  }

  return {
    async write(rows) {
      await options.insert(rows);
      if (options.retentionDays === 0 || running || now() - lastPass < PRUNE_INTERVAL_MS) return;
      lastPass = now();
      running = pass(new Date(lastPass - options.retentionDays * DAY_MS)).finally(() => (running = undefined));
    },
    idle: () => running ?? Promise.resolve(),
  };
}
