import { describe, expect, it } from "vitest";
import { PRUNE_INTERVAL_MS, ROWS_PER_STATEMENT, STATEMENTS_PER_PASS, auditRetention } from "../../lib/worlds/audit/audit-retention";
import type { AuditRow } from "../../lib/worlds/audit/tool-call-audit";

/** When the audit's writer deletes expired rows (lib/worlds/audit/audit-retention.ts); tests/worlds/audit-retention.test.ts runs it on PostgreSQL. */
const DAY_MS = 86_400_000;
const ROW: AuditRow = { tool: "t", subject: "s", durationMs: 1, outcome: "ok", argsDigest: "d" };

function harness(retentionDays: number, backlog = 0) {
  let clock = 1_000_000_000_000;
  let left = backlog;
  const inserted: AuditRow[][] = [];
  const deletes: Date[] = [];
  const retention = auditRetention({
    retentionDays,
    now: () => clock,
    insert: async (rows) => void inserted.push(rows),
    deleteBefore: async (cutoff, limit) => {
      deletes.push(cutoff);
      const n = Math.min(left, limit);
      left -= n;
      return n;
    },
  });
  // Each write waits for the pass it started: passes run beside the writes.
  const write = async (rows: AuditRow[]) => {
    await retention.write(rows);
    await retention.idle();
  };
  return { write, inserted, deletes, advance: (ms: number) => (clock += ms), now: () => clock, left: () => left };
}

describe("audit retention", () => {
  it("deletes rows older than the retention after the first batch, then at most once per interval", async () => {
    const h = harness(30);
    await h.write([ROW]);
    expect(h.inserted).toHaveLength(1);
    expect(h.deletes.map((d) => d.getTime())).toEqual([h.now() - 30 * DAY_MS]);
    h.advance(PRUNE_INTERVAL_MS - 1);
    await h.write([ROW]);
    expect(h.deletes).toHaveLength(1);
    h.advance(1);
    await h.write([ROW]);
    expect(h.deletes).toHaveLength(2);
    expect(h.inserted).toHaveLength(3);
  });

  it("clears a backlog a bounded number of statements per pass", async () => {
    const h = harness(1, ROWS_PER_STATEMENT * (STATEMENTS_PER_PASS + 2) + 7);
    await h.write([ROW]);
    expect(h.deletes).toHaveLength(STATEMENTS_PER_PASS);
    h.advance(PRUNE_INTERVAL_MS);
    await h.write([ROW]);
    expect(h.deletes).toHaveLength(STATEMENTS_PER_PASS + 3);
    expect(h.left()).toBe(0);
  });

  it("keeps every row with a retention of 0 days", async () => {
    const h = harness(0);
    await h.write([ROW]);
    h.advance(10 * PRUNE_INTERVAL_MS);
    await h.write([ROW]);
    expect(h.deletes).toHaveLength(0);
  });

  it("reports a failed pass without failing the batch it follows", async () => {
    const retention = auditRetention({
      retentionDays: 1,
      insert: async () => undefined,
      deleteBefore: async () => {
        throw new Error("the database went away");
      },
    });
    await expect(retention.write([ROW])).resolves.toBeUndefined();
    await expect(retention.idle()).resolves.toBeUndefined();
  });

  it("does not hold up the next batch while a pass runs, nor start a second pass beside it", async () => {
    let release = () => undefined as void;
    let deletes = 0;
    let inserts = 0;
    let clock = 0;
    const retention = auditRetention({
      retentionDays: 1,
      now: () => clock,
      insert: async () => void inserts++,
      deleteBefore: () => {
        deletes++;
        return new Promise<number>((resolve) => (release = () => resolve(0)));
      },
    });
    await retention.write([ROW]);
    clock += 2 * PRUNE_INTERVAL_MS;
    await retention.write([ROW]);
    expect(inserts).toBe(2);
    expect(deletes).toBe(1);
    release();
    await retention.idle();
  });
});
