import { randomUUID } from "node:crypto";
import { getPrisma } from "../../db/prisma";
import type { AuditRow } from "../audit/tool-call-audit";

/**
 * Writes a batch of audit rows in one statement. One array parameter per column (unnest) instead
 * of createMany's parameter per value: the statement is the same size for one row or five
 * hundred, so the client spends next to nothing rendering it — this runs behind every tool call.
 */
export async function insertAuditRows(rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <K extends keyof AuditRow>(key: K) => rows.map((r) => r[key]);
  await getPrisma().$executeRaw`
    INSERT INTO "ToolCallAudit" ("id", "tool", "subject", "durationMs", "outcome", "argsDigest")
    SELECT * FROM unnest(
      ${rows.map(() => randomUUID())}::text[], ${column("tool")}::text[], ${column("subject")}::text[],
      ${column("durationMs")}::int[], ${column("outcome")}::text[], ${column("argsDigest")}::text[])`;
}
