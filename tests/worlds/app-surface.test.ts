import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { DATABASE_SERVERS, queryServersDatabase } from "../support/servers";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { connectClient, mcpErrorOf } from "../support/sdk-client";
import { post } from "../support/mcp-http";
import { FIELD_LIMITS } from "../../lib/worlds/field-limits";

/**
 * WorldCrafter beyond CRUD, on the real servers over PostgreSQL and over PGlite: export_world with
 * progress, search/fetch in the company-knowledge shapes, the JSON resources, the prompts and
 * their completions, narration in the negotiated locale, tolerated client hints, widget-only
 * `_meta`, and (PostgreSQL, where the test can read the table) the audit log.
 */

type Json = Record<string, unknown>;
const uid = () => randomUUID().replaceAll("-", "").slice(0, 10);

describe.each(DATABASE_SERVERS)("on $database", ({ database, server }) => {
  const url = () => `${server()}/api/mcp`;
  const subject = newSubject("surface");
  let token = "";
  beforeAll(async () => {
    token = await tokenFor(server(), subject);
  });

  async function open() {
    // An MCP Apps host: it gets the widget-only _meta (lib/worlds/host-ui.ts).
    const { client } = await connectClient(url(), { token, capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });
    const call = async (name: string, args: Json = {}, meta?: Json) =>
      (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
    const ok = async (name: string, args: Json = {}, meta?: Json) => {
      const r = await call(name, args, meta);
      expect(r.isError, `${name}: ${JSON.stringify(r).slice(0, 300)}`).toBeFalsy();
      expect(Buffer.byteLength(JSON.stringify(r.structuredContent))).toBeLessThan(10_000);
      return r;
    };
    return { client, call, ok };
  }

  const sc = (r: CallToolResult) => r.structuredContent as Json;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  /** A world with characters and a place inside a place; names carry a unique tag. */
  async function sampleWorld(ok: Awaited<ReturnType<typeof open>>["ok"], characters = 3) {
    const tag = uid();
    const world = sc(await ok("create_world", { name: `Vale ${tag}`, theme: `theme${tag}`, tone: "quiet", description: `A valley of ${tag} mist.` })).world as Json;
    const worldId = world.id as string;
    const made = await Promise.all(
      Array.from({ length: characters }, (_, i) => ok("create_character", { worldId, name: `Hero ${i} ${tag}`, role: i === 0 ? "mentor" : "scout", traits: ["brave"], backstory: `Born under the ${tag} moon.` })),
    );
    const city = sc(await ok("create_location", { worldId, name: `City ${tag}`, kind: "city", description: "Walls of glass." })).location as Json;
    const inn = sc(await ok("create_location", { worldId, name: `Inn ${tag}`, kind: "tavern", parentId: city.id })).location as Json;
    return { tag, worldId, characterIds: made.map((r) => ((sc(r).character as Json).id as string)), cityId: city.id as string, innId: inn.id as string };
  }

  describe("export_world", () => {
    it("exports Markdown and JSON, reporting progress per step up to a final step equal to the total", async () => {
      const { client, ok } = await open();
      const { tag, worldId } = await sampleWorld(ok, 0);
      // 120 characters: two pages, so the plan has world + 2 + 1 + render = 5 steps.
      await Promise.all(Array.from({ length: 120 }, (_, i) => ok("create_character", { worldId, name: `Member ${i} ${tag}` })));
      await ok("create_character", { worldId, name: "<img src=x onerror=alert(1)>", role: "**trickster**" });

      const progress: Progress[] = [];
      const r = (await client.callTool({ name: "export_world", arguments: { worldId } }, undefined, { onprogress: (p) => progress.push(p) })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(sc(r)).toMatchObject({ worldId, counts: { characters: 121, locations: 2 } });
      expect(progress.length).toBe(5);
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5]);
      expect(progress.at(-1)).toMatchObject({ progress: 5, total: 5 });
      for (const p of progress) expect(p.total).toBeGreaterThanOrEqual(p.progress);

      const [markdown, json] = r.content.slice(1) as { type: string; resource: { uri: string; mimeType: string; text: string } }[];
      expect(markdown).toMatchObject({ type: "resource", resource: { uri: `world://${worldId}/export.md`, mimeType: "text/markdown" } });
      expect(markdown!.resource.text).toContain(`# Vale ${tag}`);
      expect(markdown!.resource.text).toContain(`Member 119 ${tag}`);
      // User text never becomes markup in the document.
      expect(markdown!.resource.text).toContain("&lt;img src=x onerror=alert\\(1\\)&gt;");
      expect(markdown!.resource.text).not.toContain("<img");
      expect(markdown!.resource.text).toMatch(/^ {2}- \*\*Inn /m); // the inn is nested under the city
      const doc = JSON.parse(json!.resource.text) as { format: string; characters: Json[]; locations: Json[] };
      expect(doc.format).toBe("worldcrafter.world/v1");
      expect(doc.characters).toHaveLength(121);
      expect(doc.locations).toHaveLength(2);
      // The same documents are resources.
      const read = await client.readResource({ uri: `world://${worldId}/export.json` });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(doc);
    });

    it("an unknown world is an isError result", async () => {
      const { call } = await open();
      const r = await call("export_world", { worldId: "missing" });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/not found/);
    });
  });

  describe("search and fetch (company-knowledge shapes)", () => {
    it("search finds worlds, characters and locations by every word; fetch returns the document with its url", async () => {
      const { ok, call } = await open();
      const { tag, worldId, characterIds, innId } = await sampleWorld(ok);
      const found = await ok("search", { query: `${tag}` });
      const results = sc(found).results as Json[];
      // The single text block is the same JSON: connectors parse it.
      expect(JSON.parse(text(found))).toEqual(sc(found));
      const ids = results.map((x) => x.id);
      expect(ids).toEqual(expect.arrayContaining([`world:${worldId}`, `character:${characterIds[0]}`, `location:${innId}`]));
      for (const x of results) expect(Object.keys(x).sort()).toEqual(["id", "snippet", "title", "url"]);
      expect(results.find((x) => x.id === `world:${worldId}`)).toMatchObject({ title: `Vale ${tag} (theme${tag})`, url: `${server()}/records/world/${worldId}` });

      // Every word must match: "mentor" narrows to the one mentor.
      const mentor = sc(await ok("search", { query: `mentor ${tag}` })).results as Json[];
      expect(mentor.map((x) => x.id)).toEqual([`character:${characterIds[0]}`]);
      expect(sc(await ok("search", { query: `nothing-${uid()}` })).results).toEqual([]);

      const world = sc(await ok("fetch", { id: `world:${worldId}` }));
      expect(world).toMatchObject({ id: `world:${worldId}`, title: `Vale ${tag} (theme${tag})`, url: `${server()}/records/world/${worldId}`, metadata: { kind: "world", resourceUri: `world://${worldId}`, characters: 3, locations: 2 } });
      expect(world.text).toContain(`A valley of ${tag} mist.`);
      expect(world.text).toContain(`Hero 0 ${tag} (mentor)`);
      const character = sc(await ok("fetch", { id: `character:${characterIds[0]}` }));
      expect(character).toMatchObject({ url: `${server()}/records/character/${characterIds[0]}`, metadata: { kind: "character", resourceUri: `character://${characterIds[0]}`, worldId } });
      expect(character.text).toContain(`Born under the ${tag} moon.`);
      const inn = sc(await ok("fetch", { id: `location:${innId}` }));
      expect(inn.text).toContain(`Inside: City ${tag}`);

      for (const id of ["world:missing", "spell:abc", "nocolon"]) {
        const r = await call("fetch", { id });
        expect(r.isError, id).toBe(true);
      }
    });

    // Outside probe (2026-11-29): each kind was cut to its ten newest matches before the name-first
    // ranking, so ten newer records that only mention a name hid the record of that name.
    it("search finds a record by its name ahead of any number of newer records that mention it", async () => {
      const { ok } = await open();
      const name = `Quixotl${uid().slice(0, 6)}`;
      const worldId = (sc(await ok("create_world", { name: `Mentions of ${uid()}`, theme: "fantasy" })).world as Json).id as string;
      const named = (sc(await ok("create_character", { worldId, name })).character as Json).id as string;
      for (let i = 0; i < 12; i++) await ok("create_character", { worldId, name: `Friend ${i}`, backstory: `Knows ${name} well.` });
      const results = sc(await ok("search", { query: name })).results as Json[];
      expect(results).toHaveLength(10);
      expect(results[0]?.id).toBe(`character:${named}`);
      expect(results.slice(1).map((r) => r.title)).toEqual(Array.from({ length: 9 }, (_, i) => `Friend ${11 - i}`));
    });
  });

  describe("resources", () => {
    it("worlds://list, world://{id}, its characters, character:// and location:// read as JSON; unknown ids are -32002", async () => {
      const { client, ok } = await open();
      const { tag, worldId, characterIds, cityId } = await sampleWorld(ok);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
        expect.arrayContaining(["world://{worldId}", "world://{worldId}/characters", "world://{worldId}/export.{format}", "character://{characterId}", "location://{locationId}"]),
      );
      const read = async (uri: string) => {
        const { contents } = await client.readResource({ uri });
        expect(contents[0]).toMatchObject({ uri, mimeType: "application/json" });
        return JSON.parse((contents[0] as { text: string }).text) as Json;
      };
      const list = await read("worlds://list");
      expect((list.worlds as Json[]).find((w) => w.id === worldId)).toMatchObject({ name: `Vale ${tag}`, uri: `world://${worldId}` });
      expect(await read(`world://${worldId}`)).toMatchObject({ id: worldId, counts: { characters: 3, locations: 2 }, characters: expect.any(Array) });
      expect(((await read(`world://${worldId}/characters`)).characters as Json[]).length).toBe(3);
      expect(await read(`character://${characterIds[0]}`)).toMatchObject({ id: characterIds[0], worldId, traits: ["brave"] });
      expect(await read(`location://${cityId}`)).toMatchObject({ id: cityId, kind: "city" });

      for (const uri of ["world://missing", "world://missing/characters", "character://missing", "location://missing", `world://${worldId}/export.pdf`]) {
        const error = await mcpErrorOf(client.readResource({ uri }));
        expect(error.code, uri).toBe(-32002);
        // The message says where the valid ids or formats are.
        expect(error.message, uri).toMatch(uri.endsWith(".pdf") ? /Export formats: md, json\./ : /Use list_worlds \(or read worlds:\/\/list\) to see your worlds/);
      }
    });
  });

  describe("prompts and completion", () => {
    it("develop-character and describe-location take a world by name or id; an unknown world is -32602", async () => {
      const { client, ok } = await open();
      const { tag, worldId } = await sampleWorld(ok);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(["describe-location", "develop-character", "start-fantasy-world"]);

      const existing = await client.getPrompt({ name: "develop-character", arguments: { world: `vale ${tag}`, character: `hero 0 ${tag}` } });
      const existingText = (existing.messages[0]?.content as { text: string }).text;
      expect(existingText).toContain(`Develop the character "Hero 0 ${tag}"`);
      expect(existingText).toContain(`Born under the ${tag} moon.`);
      const fresh = await client.getPrompt({ name: "develop-character", arguments: { world: worldId } });
      expect((fresh.messages[0]?.content as { text: string }).text).toContain(`create_character (worldId ${worldId})`);
      const place = await client.getPrompt({ name: "describe-location", arguments: { world: worldId, location: `City ${tag}` } });
      expect((place.messages[0]?.content as { text: string }).text).toContain("Walls of glass.");

      const error = await mcpErrorOf(client.getPrompt({ name: "develop-character", arguments: { world: `Nowhere ${uid()}` } }));
      expect(error.code).toBe(-32602);
    });

    // Outside probe, 2026-11-29: a blank theme made "a new  world", and a theme create_world
    // refuses (over 60 characters) made a prompt whose create_world call then failed.
    it("start-fantasy-world: a blank theme is the default, one create_world would refuse is -32602 with the limit in its data", async () => {
      const { client } = await open();
      const textOf = async (args: Record<string, string>) => ((await client.getPrompt({ name: "start-fantasy-world", arguments: args })).messages[0]?.content as { text: string }).text;
      for (const blank of [{}, { theme: "" }, { theme: "   " }] as Record<string, string>[]) expect(await textOf(blank), JSON.stringify(blank)).toContain("Help me build a new fantasy world.");
      expect(await textOf({ theme: "  solarpunk " })).toContain("Help me build a new solarpunk world.");
      expect(await textOf({ theme: "t".repeat(FIELD_LIMITS.theme) })).toContain(`a new ${"t".repeat(FIELD_LIMITS.theme)} world`);
      const error = await mcpErrorOf(client.getPrompt({ name: "start-fantasy-world", arguments: { theme: "t".repeat(FIELD_LIMITS.theme + 1) } }));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual([{ path: ["theme"], message: `Too big: expected string to have <=${FIELD_LIMITS.theme} characters` }]);
    });

    it("a name several worlds, characters or locations share is completed once and is -32602 listing their ids; the id works", async () => {
      const { client, ok } = await open();
      const tag = uid();
      const name = `Twin ${tag}`;
      const make = async () => ((sc(await ok("create_world", { name, theme: "myth" })).world as Json).id as string);
      const [older, newer] = [await make(), await make()];
      const complete = async (prompt: string, argument: string, value: string, context?: Record<string, string>) =>
        (await client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name: argument, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values;
      expect(await complete("develop-character", "world", name)).toEqual([name]);

      for (const prompt of ["develop-character", "describe-location"]) {
        const error = await mcpErrorOf(client.getPrompt({ name: prompt, arguments: { world: name } }));
        expect(error.code, prompt).toBe(-32602);
        expect(error.message).toMatch(/ambiguous/);
        expect(error.message).toContain(older);
        expect(error.message).toContain(newer);
      }
      const byId = await client.getPrompt({ name: "develop-character", arguments: { world: older } });
      expect((byId.messages[0]?.content as { text: string }).text).toContain(`create_character (worldId ${older})`);

      const hero = `Echo ${tag}`;
      const heroes = await Promise.all([0, 1].map(async () => ((sc(await ok("create_character", { worldId: older, name: hero })).character as Json).id as string)));
      const places = await Promise.all([0, 1].map(async () => ((sc(await ok("create_location", { worldId: older, name: `Ford ${tag}` })).location as Json).id as string)));
      expect(await complete("develop-character", "character", "echo", { world: older })).toEqual([hero]);
      expect(await complete("describe-location", "location", "ford", { world: older })).toEqual([`Ford ${tag}`]);
      const character = await mcpErrorOf(client.getPrompt({ name: "develop-character", arguments: { world: older, character: hero } }));
      expect(character.code).toBe(-32602);
      for (const id of heroes) expect(character.message).toContain(id);
      const location = await mcpErrorOf(client.getPrompt({ name: "describe-location", arguments: { world: older, location: `Ford ${tag}` } }));
      expect(location.code).toBe(-32602);
      for (const id of places) expect(location.message).toContain(id);
      const one = await client.getPrompt({ name: "develop-character", arguments: { world: older, character: heroes[1]! } });
      expect((one.messages[0]?.content as { text: string }).text).toContain(`(id ${heroes[1]}`);
      const place = await client.getPrompt({ name: "describe-location", arguments: { world: older, location: places[0]! } });
      expect((place.messages[0]?.content as { text: string }).text).toContain(`Describe "Ford ${tag}"`);
    });

    it("completes world names, names inside the chosen world, world ids, and the caller's own themes", async () => {
      const { client, ok } = await open();
      const { tag, worldId, characterIds } = await sampleWorld(ok);
      const complete = async (ref: Json, name: string, value: string, context?: Record<string, string>) =>
        (await client.complete({ ref: ref as { type: "ref/prompt"; name: string }, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values;

      expect(await complete({ type: "ref/prompt", name: "develop-character" }, "world", `Vale ${tag}`)).toEqual([`Vale ${tag}`]);
      expect(await complete({ type: "ref/prompt", name: "develop-character" }, "character", "hero", { world: worldId })).toEqual(
        expect.arrayContaining([`Hero 0 ${tag}`, `Hero 1 ${tag}`, `Hero 2 ${tag}`]),
      );
      expect(await complete({ type: "ref/prompt", name: "describe-location" }, "location", "inn", { world: `Vale ${tag}` })).toEqual([`Inn ${tag}`]);
      // No world chosen yet: nothing to suggest inside it.
      expect(await complete({ type: "ref/prompt", name: "develop-character" }, "character", "hero")).toEqual([]);
      expect(await complete({ type: "ref/resource", uri: "world://{worldId}" }, "worldId", worldId.slice(0, 12))).toContain(worldId);
      expect(await complete({ type: "ref/resource", uri: "character://{characterId}" }, "characterId", characterIds[0]!)).toEqual([characterIds[0]]);
      expect(await complete({ type: "ref/prompt", name: "start-fantasy-world" }, "theme", `theme${tag}`)).toEqual([`theme${tag}`]);
    });
  });

  describe("locale and client hints", () => {
    it("narrates in the negotiated locale (RFC 4647 lookup), English otherwise; initialize echoes the choice", async () => {
      const { ok } = await open();
      const tag = uid();
      const named = (locale: string) => ok("create_world", { name: `Loc ${tag}`, theme: "myth" }, { "openai/locale": locale });
      expect(text(await named("fr-CA"))).toMatch(/^Monde « Loc .* » \(myth\) créé/);
      expect(text(await named("es-419"))).toMatch(/^Mundo «Loc .*» \(myth\) creado/);
      expect(text(await named("de-DE, fr;q=0.5"))).toMatch(/^Monde/);
      expect(text(await named("de-DE"))).toMatch(/^Created world "Loc /);
      expect(text(await named("not a tag!"))).toMatch(/^Created world/);
      // suggest_names narrates too (outside review: it was English whatever the locale).
      const names = (locale: string) => ok("suggest_names", { style: "elvish", count: 2 }, { "openai/locale": locale });
      expect(text(await names("fr-FR"))).toMatch(/^2 noms \(elvish, person\) : /);
      expect(text(await names("es"))).toMatch(/^2 nombres \(elvish, person\): /);
      expect(text(await names("en-GB"))).toMatch(/^2 elvish person names: /);

      const init = await post(url(), {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" }, _meta: { "openai/locale": "es-MX" } },
      });
      expect((init.json as { result: Json }).result._meta).toEqual({ "openai/locale": "es" });
    });

    it("accepts client hints, even malformed ones, without changing the outcome", async () => {
      const { ok } = await open();
      const hints = {
        "openai/userAgent": "ChatGPT/1.2025.012",
        "openai/userLocation": { city: "Lyon", country: "FR", timezone: "Not/AZone", latitude: 999 },
        "openai/subject": "anon-123",
      };
      const r = await ok("create_world", { name: `Hinted ${uid()}`, theme: "myth" }, hints);
      expect(sc(r).world).toMatchObject({ theme: "myth" });
      const junk = await ok("list_worlds", { limit: 1 }, { "openai/userLocation": "nowhere", "openai/userAgent": 42 });
      expect(Array.isArray(sc(junk).worlds)).toBe(true);
    });
  });

  describe("widget-only _meta", () => {
    it("get_world gives the model counts and the widget the full record with a preview of characters and places", async () => {
      const { ok } = await open();
      const { worldId } = await sampleWorld(ok);
      await ok("update_world", { worldId, description: "ж".repeat(2000) });
      const r = await ok("get_world", { worldId });
      const widget = r._meta?.["worldcrafter/world"] as Json;
      expect(widget).toMatchObject({ id: worldId, counts: { characters: 3, locations: 2 } });
      expect((widget.characters as Json[]).map((c) => Object.keys(c).sort())).toEqual(Array(3).fill(["id", "name", "role"]));
      expect((widget.locations as Json[]).length).toBe(2);
      expect(widget.description).toBe("ж".repeat(2000));
      expect(sc(r).world).not.toHaveProperty("characters");
    });
  });

  it.runIf(database === "PostgreSQL")("every tool call leaves one audit row: tool, subject, duration, outcome and an argument digest — never the arguments", async () => {
    const { ok, call } = await open();
    const secret = `secret-${uid()}`;
    await ok("search", { query: secret });
    await ok("search", { query: secret });
    await call("get_world", { worldId: `missing-${secret}` });
    const rows = await waitForAuditRows(3, secret);
    expect(rows.map((r) => r.tool).sort()).toEqual(["get_world", "search", "search"]);
    const [a, b] = rows.filter((r) => r.tool === "search");
    expect(a!.argsDigest).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(a!.argsDigest).toBe(b!.argsDigest);
    expect(rows.find((r) => r.tool === "get_world")).toMatchObject({ outcome: "tool_error", subject });
    for (const row of rows) {
      expect(row.outcome === "ok" || row.outcome === "tool_error").toBe(true);
      expect(typeof row.durationMs).toBe("number");
      expect(JSON.stringify(row)).not.toContain(secret);
    }
  });
});

/**
 * The audit rows of the digests of `{query: secret}` and `{worldId: "missing-<secret>"}`: rows are
 * written after the response, so poll briefly.
 */
async function waitForAuditRows(expected: number, secret: string): Promise<Json[]> {
  const { argumentsDigest } = await import("../../lib/worlds/audit/tool-call-audit");
  const digests = [argumentsDigest({ query: secret }), argumentsDigest({ worldId: `missing-${secret}` })];
  for (let i = 0; ; i += 1) {
    const rows = await queryServersDatabase<Json>(`SELECT * FROM $schema."ToolCallAudit" WHERE "argsDigest" = ANY($1)`, [digests]);
    if (rows.length >= expected || i > 50) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}
