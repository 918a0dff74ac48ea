import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { callTool, eraClient, type EraClient } from "../support/both-eras";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startSchemaServer, type SchemaServer } from "../support/schema-server";

/**
 * One name, one spelling: WorldCrafter stores text in Unicode NFC (lib/worlds/single-line.ts,
 * `storedText`) and matches in NFC (lib/worlds/data/text-match.ts). An outside review created
 * "Café" typed on a keyboard (U+00E9) and "Cafe\u0301" from a file (e + combining acute): two
 * worlds that look the same, which the filters, search and completion told apart, and whose
 * prompt lookup picked one without a word. Rows stored before are brought to NFC by the migration
 * prisma/migrations/*_text_nfc. The same review found `location://{locationId}` the one record
 * template without completion.
 */
const NFC = "Caf\u00e9 Noir";
const NFD = "Cafe\u0301 Noir";

let env: SchemaServer;
let server: RunningNextServer;
let db: pg.Client;
let client: EraClient;

beforeAll(async () => {
  env = await startSchemaServer("wc_name_forms");
  ({ server, db } = env);
  // 2025-11-25 without elicitation: delete_world takes `confirmName`.
  client = await eraClient(`${server.url}/api/mcp`, "2025-11-25", await tokenFor(server.url, newSubject("forms")));
}, 90_000);

afterAll(async () => {
  await env?.stop();
});

const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);

async function created(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call(name, args);
  expect(result.isError, result.content[0]?.text).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

const namesOf = (structured: Record<string, unknown> | undefined, key: string) => ((structured?.[key] ?? []) as { name: string }[]).map((r) => r.name);

describe("names in NFC", () => {
  it("stores a decomposed name, theme and description as NFC, and finds it by either form", async () => {
    const world = (await created("create_world", { name: NFD, theme: "re\u0301tro", description: `A cafe\u0301 at the end of time.` })).world as Record<string, string>;
    expect(world.name).toBe(NFC);
    expect(world.theme).toBe("r\u00e9tro");
    expect(world.description).toBe("A caf\u00e9 at the end of time.");

    for (const form of [NFC, NFD]) {
      const listed = await call("list_worlds", { nameContains: form });
      expect(namesOf(listed.structuredContent, "worlds"), form).toEqual([NFC]);
      const found = await call("search", { query: form.split(" ")[0] });
      expect(JSON.stringify(found.structuredContent)).toContain(world.id);
    }

    // Completion of a prompt's world argument, typed in the other form, offers the one name.
    const completion = await client.request("completion/complete", { ref: { type: "ref/prompt", name: "develop-character" }, argument: { name: "world", value: "Cafe\u0301" } });
    expect((completion.message?.result as { completion: { values: string[] } }).completion.values).toEqual([NFC]);
  });

  it("takes confirmName in either form, and a second world of the same name (the other form) is one name to the prompts", async () => {
    const first = ((await created("create_world", { name: `${NFC} II` })).world as { id: string }).id;
    const second = ((await created("create_world", { name: `${NFD} II` })).world as { id: string; name: string });
    expect(second.name).toBe(`${NFC} II`);
    const ambiguous = await client.request("prompts/get", { name: "develop-character", arguments: { world: `${NFC} II` } });
    expect((ambiguous.message?.error as { code: number; message: string }).code).toBe(-32602);
    expect((ambiguous.message?.error as { message: string }).message).toContain(first);

    const deleted = await call("delete_world", { worldId: second.id, confirmName: `${NFD} II` });
    expect(deleted.isError, deleted.content[0]?.text).toBeFalsy();
  });

  it("keeps characters' and locations' text in NFC, traits included", async () => {
    const worldId = ((await created("create_world", { name: "Forms" })).world as { id: string }).id;
    const character = (await created("create_character", { worldId, name: "Ame\u0301lie", role: "re\u0301sistante", traits: ["fie\u0300re"], backstory: "Ne\u0301e a\u0300 Paris." })).character as Record<string, unknown>;
    expect(character).toMatchObject({ name: "Am\u00e9lie", role: "r\u00e9sistante", traits: ["fi\u00e8re"], backstory: "N\u00e9e \u00e0 Paris." });
    const location = (await created("create_location", { worldId, name: "Caf\u00e9 de Flore", kind: "cafe\u0301" })).location as Record<string, unknown>;
    expect(location).toMatchObject({ name: "Caf\u00e9 de Flore", kind: "caf\u00e9" });
    const characters = await call("list_characters", { worldId, role: "r\u00e9sistante".normalize("NFD") });
    expect(namesOf(characters.structuredContent, "characters")).toEqual(["Am\u00e9lie"]);
  });

  it("brings rows stored before to NFC (the migration), and leaves NFC rows and their updatedAt alone", async () => {
    const owner = newSubject("legacy");
    await db.query(`INSERT INTO "World" ("id", "ownerSubject", "name", "theme", "description", "tone", "updatedAt") VALUES ('w_nfd', $1, $2, 'noir', $3, '', '2026-01-01T00:00:00Z'), ('w_nfc', $1, 'Plain', 'noir', '', '', '2026-01-01T00:00:00Z')`, [owner, NFD, "cafe\u0301"]);
    await db.query(`INSERT INTO "Character" ("id", "ownerSubject", "worldId", "name", "traits", "updatedAt") VALUES ('c_nfd', $1, 'w_nfd', 'Ame\u0301lie', $2, '2026-01-01T00:00:00Z')`, [owner, ["a", "fie\u0300re", "b"]]);
    await db.query(`INSERT INTO "Location" ("id", "ownerSubject", "worldId", "name", "kind", "updatedAt") VALUES ('l_nfd', $1, 'w_nfd', 'Flore', 'cafe\u0301', '2026-01-01T00:00:00Z')`, [owner]);

    const [migration] = ["20261128030000_text_nfc"].map((dir) => readFileSync(new URL(`../../prisma/migrations/${dir}/migration.sql`, import.meta.url), "utf8"));
    await db.query(migration as string);

    const worlds = (await db.query(`SELECT "id", "name", "description", "updatedAt" FROM "World" WHERE "ownerSubject" = $1 ORDER BY "id"`, [owner])).rows;
    expect(worlds.map((w) => [w.id, w.name, w.description])).toEqual([["w_nfc", "Plain", ""], ["w_nfd", NFC, "caf\u00e9"]]);
    expect(worlds.every((w) => (w.updatedAt as Date).toISOString() === "2026-01-01T00:00:00.000Z")).toBe(true);
    expect((await db.query(`SELECT "name", "traits" FROM "Character" WHERE "id" = 'c_nfd'`)).rows[0]).toEqual({ name: "Am\u00e9lie", traits: ["a", "fi\u00e8re", "b"] });
    expect((await db.query(`SELECT "kind" FROM "Location" WHERE "id" = 'l_nfd'`)).rows[0]).toEqual({ kind: "caf\u00e9" });
  });
});

describe("completion of location://{locationId}", () => {
  it("offers the caller's location ids, by id prefix or by name, and none of another account's", async () => {
    const worldId = ((await created("create_world", { name: "Maps" })).world as { id: string }).id;
    const harbour = ((await created("create_location", { worldId, name: "Saltgate Harbour" })).location as { id: string }).id;
    const complete = async (c: EraClient, value: string) => {
      const r = await c.request("completion/complete", { ref: { type: "ref/resource", uri: "location://{locationId}" }, argument: { name: "locationId", value } });
      return (r.message?.result as { completion: { values: string[] } }).completion.values;
    };
    expect(await complete(client, "")).toContain(harbour);
    expect(await complete(client, harbour.slice(0, 4))).toContain(harbour);
    expect(await complete(client, "saltgate")).toEqual([harbour]);
    const stranger = await eraClient(`${server.url}/api/mcp`, "2026-07-28", await tokenFor(server.url, newSubject("stranger")));
    expect(await complete(stranger, "")).toEqual([]);
  });
});
