import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { ERAS, callTool, eraClient, type EraClient, type ToolResult } from "../support/both-eras";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startOwnServer } from "../support/own-server";

/**
 * What one account may keep (lib/worlds/data/quotas.ts), on a production server of this file's own
 * with tiny bounds: 2 worlds per account (MCP_MAX_WORLDS_PER_USER) and 3 characters and locations
 * together per world (MCP_MAX_RECORDS_PER_WORLD). An outside audit found none: one account's
 * import_world calls added 2,000 rows each, as fast as the rate limits allowed. In both eras, a
 * write past a bound is an isError result with code quota_exceeded that says what to do, and
 * nothing is written; other accounts are not touched, and deleting a world makes room again.
 */
const MAX_WORLDS = 2;
const MAX_RECORDS = 3;

let server: RunningNextServer;

beforeAll(async () => {
  server = await startOwnServer({ MCP_MAX_WORLDS_PER_USER: String(MAX_WORLDS), MCP_MAX_RECORDS_PER_WORLD: String(MAX_RECORDS) });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

type Result = ToolResult;

async function clientFor(era: (typeof ERAS)[number], subject = newSubject("quota")): Promise<EraClient> {
  return eraClient(`${server.url}/api/mcp`, era, await tokenFor(server.url, subject));
}

const call = callTool;

async function created(client: EraClient, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call(client, name, args);
  expect(result.isError, result.content[0]?.text).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

function expectQuota(result: Result, message: RegExp): void {
  expect(result.isError).toBe(true);
  const error = (result.structuredContent as { error: { code: string; message: string } }).error;
  expect(error.code).toBe("quota_exceeded");
  expect(error.message).toMatch(message);
  expect(result.content[0]?.text).toMatch(message);
}

const worldIdOf = (content: Record<string, unknown>) => (content.world as { id: string }).id;

/** A WorldCrafter JSON export with `characters` characters and no locations. */
function exportFile(name: string, characters: number): string {
  return JSON.stringify({
    format: "worldcrafter.world/v1",
    world: { name, theme: "sea" },
    characters: Array.from({ length: characters }, (_, i) => ({ name: `Sailor ${i + 1}` })),
    locations: [],
  });
}

describe.each(ERAS)("quotas per account (%s)", (era) => {
  it(`keeps at most ${MAX_WORLDS} worlds per account: create_world and import_world past it are refused, others go on, and delete_world makes room`, async () => {
    const client = await clientFor(era);
    const first = worldIdOf(await created(client, "create_world", { name: "Quota One", theme: "sea" }));
    await created(client, "import_world", { document: exportFile("Quota Two", 1) });
    expectQuota(await call(client, "create_world", { name: "Quota Three", theme: "sea" }), /You already keep 2 worlds, the most one account may have here\. Delete a world you no longer need \(delete_world\)/);
    expectQuota(await call(client, "import_world", { document: exportFile("Quota Three", 1) }), /You already keep 2 worlds/);
    const listed = await created(client, "list_worlds", { limit: 10 });
    expect((listed.worlds as { name: string }[]).map((w) => w.name).sort()).toEqual(["Quota One", "Quota Two"]);

    // Another account is not touched by this one's bound.
    await created(await clientFor(era), "create_world", { name: "Someone Else", theme: "sea" });

    await created(client, "delete_world", { worldId: first, confirmName: "Quota One" });
    await created(client, "create_world", { name: "Quota Three", theme: "sea" });
  });

  it(`keeps at most ${MAX_RECORDS} characters and locations together in one world, and refuses an import file larger than a world may be`, async () => {
    const client = await clientFor(era);
    const worldId = worldIdOf(await created(client, "create_world", { name: "Crowded Isle", theme: "sea" }));
    await created(client, "create_character", { worldId, name: "Ada" });
    await created(client, "create_location", { worldId, name: "Harbour" });
    await created(client, "create_character", { worldId, name: "Bo" });
    const full = /This world already holds as many characters and locations as one world may have here \(3 together\)\. Start another world for more\./;
    expectQuota(await call(client, "create_character", { worldId, name: "Cy" }), full);
    expectQuota(await call(client, "create_location", { worldId, name: "Lighthouse" }), full);
    const characters = await created(client, "list_characters", { worldId, limit: 10 });
    expect((characters.characters as unknown[]).length).toBe(2);

    expectQuota(await call(client, "import_world", { document: exportFile("Too Big", MAX_RECORDS + 1) }), /The file holds 4 characters and locations, more than one world may have here \(3\)/);
    const worlds = await created(client, "list_worlds", { limit: 10 });
    expect((worlds.worlds as unknown[]).length).toBe(1);
  });
});
