import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eraClient, toolResult } from "../support/both-eras";
import { waitFor } from "../support/sdk-client";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";

/**
 * Audit rows past MCP_AUDIT_RETENTION_DAYS go (lib/worlds/audit/audit-retention.ts), on a production
 * server with a schema of its own and a retention of 30 days: the first batch of audit rows it
 * writes after a tool call also deletes the rows older than that, and keeps the younger ones. An
 * outside audit found the table growing by one row per call, forever.
 */
let database: TestSchema;
let server: RunningNextServer;
let db: pg.Client;

beforeAll(async () => {
  database = await migratedTestSchema("wc_audit_retention");
  db = new pg.Client({ connectionString: database.baseUrl, options: `-c search_path="${database.schema}"` });
  await db.connect();
  const port = await freePort();
  server = await startNextServer({
    port,
    env: { DATABASE_URL: database.url, MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`, MCP_AUDIT_RETENTION_DAYS: "30", MCP_AUTH_KEYS_DIR: inject("devIssuerDir") },
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await db?.end();
  await database?.drop();
});

const insertAged = (id: string, days: number) =>
  db.query(`INSERT INTO "ToolCallAudit" ("id", "tool", "subject", "durationMs", "outcome", "argsDigest", "createdAt") VALUES ($1, 'old_tool', 'someone', 1, 'ok', 'sha256:0', timezone('UTC', now()) - make_interval(days => $2))`, [id, days]);

describe("audit retention (MCP_AUDIT_RETENTION_DAYS=30)", () => {
  it("deletes the rows older than 30 days once the server writes its next audit batch, and keeps the rest", async () => {
    await insertAged("aged-400", 400);
    await insertAged("aged-31", 31);
    await insertAged("aged-29", 29);
    const client = await eraClient(`${server.url}/api/mcp`, "2026-07-28");
    const answer = await client.request("tools/call", { name: "suggest_names", arguments: { style: "elvish", count: 1 } });
    expect(toolResult(answer.message)?.isError).toBeFalsy();

    const ids = async () => (await db.query<{ id: string; tool: string }>(`SELECT "id", "tool" FROM "ToolCallAudit" ORDER BY "createdAt"`)).rows;
    const settled = await waitFor(async () => {
      const rows = await ids();
      return rows.some((r) => r.tool === "suggest_names") && !rows.some((r) => r.id === "aged-31") ? rows : undefined;
    });
    expect(settled, JSON.stringify(await ids())).toBeDefined();
    const rows = settled ?? [];
    expect(rows.map((r) => r.id).filter((id) => id.startsWith("aged-"))).toEqual(["aged-29"]);
    expect(rows.filter((r) => r.tool === "suggest_names")).toHaveLength(1);
  });
});
