import { randomUUID } from "node:crypto";
import { sql } from "../../db/prisma";
import type { AuditRow } from "../audit/tool-call-audit";

/**
 * Writes a batch of audit rows in one statement whose only parameter is the batch as JSON text.
 * This runs behind every tool call, so it skips Prisma's engine (which would serialize, and the
 * driver escape, every value of every row) and sends one string the server unpacks with
 * json_to_recordset: the cost is one JSON.stringify, the same for one row or five hundred. It also
 * means a server whose tools never touch world data never loads the query compiler.
 */
export async function insertAuditRows(rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  // Fields listed, not spread after the id: a spread that is not first takes V8's slow copy path.
  const batch = JSON.stringify(
    rows.map((row) => ({ id: randomUUID(), tool: row.tool, subject: row.subject, durationMs: row.durationMs, outcome: row.outcome, argsDigest: row.argsDigest })),
  );
  // createdAt in UTC, as Prisma writes and reads its timestamps: the column's default would be the
  // database session's local time, and the retention's cutoff (below) is UTC.
  await sql(
    `INSERT INTO "ToolCallAudit" ("id", "tool", "subject", "durationMs", "outcome", "argsDigest", "createdAt")
     SELECT r."id", r."tool", r."subject", r."durationMs", r."outcome", r."argsDigest", timezone('UTC', now())
     FROM json_to_recordset($1::json)
       AS r("id" text, "tool" text, "subject" text, "durationMs" int, "outcome" text, "argsDigest" text)`,
    [batch],
  );
}

/**
 * Deletes up to `limit` audit rows created before `cutoff`, oldest first, through the createdAt
 * index; returns how many went. Bounded, so one statement never holds the table for long.
 */
export async function deleteAuditRowsBefore(cutoff: Date, limit: number): Promise<number> {
  const [row] = await sql<{ deleted: number }>(
    `WITH gone AS (
       DELETE FROM "ToolCallAudit" WHERE "id" IN (
         SELECT "id" FROM "ToolCallAudit" WHERE "createdAt" < ($1::timestamptz AT TIME ZONE 'UTC') ORDER BY "createdAt" LIMIT $2
       ) RETURNING 1
     )
     SELECT count(*)::int AS deleted FROM gone`,
    [cutoff.toISOString(), limit],
  );
  return row?.deleted ?? 0;
}
