import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { callTool, eraClient, type EraClient } from "../support/both-eras";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startSchemaServer, type SchemaServer } from "../support/schema-server";

/**
 * A create that loses the race with a delete is `not_found`, not an internal error: an outside
 * review ran delete_world beside create_character and create_location and got
 * `{"code":"internal"}` with a foreign-key stack in the log (lib/worlds/data/characters.ts,
 * locations.ts). The race is made certain here: a transaction of the test's own deletes the row
 * and holds its lock, the create passes its checks (the deletion is not yet visible) and waits on
 * that lock at its insert, and the deletion commits under it.
 */
let env: SchemaServer;
let server: RunningNextServer;
let db: pg.Client;
let client: EraClient;

beforeAll(async () => {
  env = await startSchemaServer("wc_create_delete");
  ({ server, db } = env);
  client = await eraClient(`${server.url}/api/mcp`, "2026-07-28", await tokenFor(server.url, newSubject("racer")));
}, 90_000);

afterAll(async () => {
  await env?.stop();
});

const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);

async function newWorld(): Promise<string> {
  const result = await call("create_world", { name: `Doomed ${Math.random().toString(36).slice(2, 8)}` });
  return ((result.structuredContent as { world: { id: string } }).world).id;
}

/** Runs `create` while `deleteSql` is deleted, uncommitted, then commits once the create waits on the row's lock. */
async function createWhileDeleting(deleteSql: string, id: string, create: () => ReturnType<typeof call>) {
  const me = (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  await db.query("BEGIN");
  await db.query(deleteSql, [id]);
  const pending = create();
  // The create's insert waits for the deleting transaction: a lock not granted, held up by this
  // backend (pg_locks, not pg_stat_activity, which a transaction reads once and keeps).
  const deadline = Date.now() + 10_000;
  for (;;) {
    const waiting = await db.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND $1 = ANY(pg_blocking_pids(pid))`, [me]);
    if (waiting.rowCount) break;
    if (Date.now() > deadline) {
      await db.query("ROLLBACK");
      throw new Error("the create never waited on the deleted row");
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await db.query("COMMIT");
  return pending;
}

function expectNotFound(result: Awaited<ReturnType<typeof call>>, what: RegExp) {
  expect(result.isError, result.content[0]?.text).toBe(true);
  const error = (result.structuredContent as { error: { code: string; message: string } }).error;
  expect(error.code).toBe("not_found");
  expect(error.message).toMatch(what);
}

describe("a create racing a delete", () => {
  it("create_character in a world deleted under it: not_found for the world", async () => {
    const worldId = await newWorld();
    const result = await createWhileDeleting(`DELETE FROM "World" WHERE "id" = $1`, worldId, () => call("create_character", { worldId, name: "Late" }));
    expectNotFound(result, new RegExp(`World "${worldId}" was not found`));
  });

  it("create_location in a world deleted under it: not_found for the world", async () => {
    const worldId = await newWorld();
    const result = await createWhileDeleting(`DELETE FROM "World" WHERE "id" = $1`, worldId, () => call("create_location", { worldId, name: "Late" }));
    expectNotFound(result, new RegExp(`World "${worldId}" was not found`));
  });

  it("create_location inside a parent deleted under it: not_found for the parent, and the world stays", async () => {
    const worldId = await newWorld();
    const parent = await call("create_location", { worldId, name: "City" });
    const parentId = (parent.structuredContent as { location: { id: string } }).location.id;
    const result = await createWhileDeleting(`DELETE FROM "Location" WHERE "id" = $1`, parentId, () => call("create_location", { worldId, name: "Tavern", parentId }));
    expectNotFound(result, new RegExp(`Location "${parentId}" was not found`));
    expect((await call("get_world", { worldId })).isError).toBeFalsy();
  });
});
