import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { DATABASE_SERVERS, queryServersDatabase } from "../support/servers";
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { connectClient } from "../support/sdk-client";
import { JSON_AND_SSE, sseMessages } from "../support/mcp-http";
import { MAX_LOCATION_DEPTH } from "../../lib/worlds/data/location-depth";

/**
 * The WorldCrafter data tools on the real servers — next start over PostgreSQL (a fresh migrated
 * schema) and next start over an embedded PGlite folder — with the same tests: the whole world
 * lifecycle with the official 1.x client in 2025-11-25, delete_world's confirmation in both eras,
 * not-found as isError results, and 50 parallel creates.
 */

type Json = Record<string, unknown>;
const uid = () => randomUUID().slice(0, 8);

describe.each(DATABASE_SERVERS)("on $database", ({ database, server }) => {
  const mainUrl = () => `${server()}/api/mcp`;
  // One subject for this suite: its rows are its own, whatever other suites do meanwhile.
  const subject = newSubject("data");
  let token = "";
  beforeAll(async () => {
    token = await tokenFor(server(), subject);
  });

  type Answer = ElicitResult;

  /** An SDK client that declares form elicitation and answers every question with `answers()`. */
  async function client(answers: () => Answer = () => ({ action: "accept", content: { confirm: true } })) {
    const asked: Json[] = [];
    const { client } = await connectClient(mainUrl(), {
      token,
      capabilities: { elicitation: { form: {} } },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(request.params as Json);
          return answers() as ElicitResult;
        }),
    });
    const call = async (name: string, args: Json = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { client, call, asked };
  }

  const structured = (r: CallToolResult) => r.structuredContent as Json;
  const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  function ok(r: CallToolResult): Json {
    expect(r.isError, JSON.stringify(r).slice(0, 400)).toBeFalsy();
    expect(textOf(r).length).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(r.structuredContent))).toBeLessThan(10_000);
    return structured(r);
  }

  describe("WorldCrafter data tools (2025-11-25, SDK client)", () => {
    it("tools/list publishes the data tools with honest annotations and host metadata", async () => {
      const { client: c } = await client();
      const { tools } = await c.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of ["suggest_names", "draft_world_outline", "create_world", "list_worlds", "get_world", "update_world", "delete_world", "create_character", "get_character", "list_characters", "update_character", "create_location", "list_locations"]) {
        expect(byName.has(name), name).toBe(true);
      }
      expect(byName.get("get_world")?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(byName.get("create_world")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
      expect(byName.get("delete_world")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
      // It fetches the file's URL from any public https host: an open world (server/tools §annotations).
      expect(byName.get("import_world")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
      expect(byName.get("list_worlds")?._meta).toMatchObject({ "openai/toolInvocation/invoking": expect.any(String), "openai/toolInvocation/invoked": expect.any(String) });
      expect(byName.get("create_world")?.inputSchema.properties).toMatchObject({ name: { type: "string", maxLength: 120 } });
    });

    it("create → get → list → update → characters and locations → delete (confirmed by the user)", async () => {
      const { call, asked } = await client();
      const name = `Eldergrove ${uid()}`;
      const created = ok(await call("create_world", { name, theme: "fantasy", tone: "wistful", description: "An old forest realm." }));
      const world = created.world as Json;
      expect(world).toMatchObject({ name, theme: "fantasy", tone: "wistful" });
      const worldId = world.id as string;

      const char = ok(await call("create_character", { worldId, name: "Aelin", role: "ranger", traits: ["quiet", "keen"], backstory: "Raised by owls." }));
      const characterId = (char.character as Json).id as string;
      ok(await call("create_character", { worldId, name: "Borin", role: "smith" }));
      const city = ok(await call("create_location", { worldId, name: "Thornwall", kind: "city" }));
      const cityId = (city.location as Json).id as string;
      const inn = ok(await call("create_location", { worldId, name: "The Crooked Owl", kind: "tavern", parentId: cityId }));
      expect(inn.location).toMatchObject({ parentId: cityId });

      const got = ok(await call("get_world", { worldId }));
      expect(got.world).toMatchObject({ id: worldId, name, description: "An old forest realm.", counts: { characters: 2, locations: 2 } });

      const listed = ok(await call("list_worlds", { nameContains: name.toLowerCase() }));
      expect((listed.worlds as Json[]).map((w) => w.id)).toEqual([worldId]);
      const byTheme = ok(await call("list_worlds", { theme: "FANTASY", nameContains: name }));
      expect((byTheme.worlds as Json[]).length).toBe(1);

      const updated = ok(await call("update_world", { worldId, tone: "hopeful", description: "A forest reborn." }));
      expect(updated.world).toMatchObject({ name, tone: "hopeful", description: "A forest reborn." });

      expect(ok(await call("get_character", { characterId })).character).toMatchObject({ name: "Aelin", traits: ["quiet", "keen"], worldId });
      expect(ok(await call("update_character", { characterId, traits: ["bold"] })).character).toMatchObject({ name: "Aelin", traits: ["bold"] });
      const chars = ok(await call("list_characters", { worldId, limit: 1 }));
      expect((chars.characters as Json[]).length).toBe(1);
      expect(typeof chars.nextCursor).toBe("string");
      const chars2 = ok(await call("list_characters", { worldId, limit: 1, cursor: chars.nextCursor }));
      expect((chars2.characters as Json[]).length).toBe(1);
      expect(chars2.nextCursor).toBeUndefined();
      expect(new Set([...(chars.characters as Json[]), ...(chars2.characters as Json[])].map((c) => c.name))).toEqual(new Set(["Aelin", "Borin"]));
      expect((ok(await call("list_locations", { worldId, parentId: cityId })).locations as Json[]).map((l) => l.name)).toEqual(["The Crooked Owl"]);
      expect((ok(await call("list_characters", { worldId, role: "Smith" })).characters as Json[]).map((c) => c.name)).toEqual(["Borin"]);

      const deleted = ok(await call("delete_world", { worldId }));
      expect(deleted).toEqual({ deleted: true, worldId, name });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ requestedSchema: { type: "object", required: ["confirm"] } });
      expect(String(asked[0]?.message)).toContain(name);

      const gone = await call("get_world", { worldId });
      expect(gone.isError).toBe(true);
      // Cascade: the world's characters went with it.
      expect((await call("get_character", { characterId })).isError).toBe(true);
    });

    it("delete_world: declined or cancelled leaves the world", async () => {
      for (const action of ["decline", "cancel"] as const) {
        const { call, asked } = await client(() => ({ action }));
        const worldId = ((ok(await call("create_world", { name: `Keep ${uid()}`, theme: "mystery" })).world as Json).id) as string;
        const kept = ok(await call("delete_world", { worldId }));
        expect(kept).toMatchObject({ deleted: false, worldId });
        expect(asked).toHaveLength(1);
        ok(await call("get_world", { worldId }));
      }
      // Accepted but not ticked: kept too. So is a form that does not fit it (the box left out,
      // "yes" for true): checked against the form, it confirms nothing, and the call does not fail.
      for (const content of [{ confirm: false }, {}, { confirm: "yes" }] as Record<string, string | boolean>[]) {
        const { call } = await client(() => ({ action: "accept", content }));
        const worldId = ((ok(await call("create_world", { name: `Keep ${uid()}`, theme: "mystery" })).world as Json).id) as string;
        expect(ok(await call("delete_world", { worldId })), JSON.stringify(content)).toMatchObject({ deleted: false, reason: "not_confirmed" });
        ok(await call("get_world", { worldId }));
      }
    });

    // Outside probe, 2026-11-29: a list_characters cursor of world A, passed with world B, paged B
    // from A's row and silently skipped B's newest records.
    it("a cursor pages only the list it came from: another world, filter, list or user is refused by name", async () => {
      const { call } = await client();
      const worldOf = async () => ((ok(await call("create_world", { name: `Cursor ${uid()}`, theme: "x" })).world as Json).id) as string;
      const [a, b] = [await worldOf(), await worldOf()];
      for (const worldId of [a, b]) for (const name of ["K1", "K2", "K3"]) ok(await call("create_character", { worldId, name, role: "Smith" }));
      const first = ok(await call("list_characters", { worldId: a, limit: 2 }));
      const cursor = first.nextCursor as string;
      expect(typeof cursor).toBe("string");
      expect((ok(await call("list_characters", { worldId: a, limit: 2, cursor })).characters as Json[]).map((c) => c.name)).toEqual(["K1"]);
      const otherToken = await tokenFor(server(), newSubject("data-cursor-other"));
      const { client: other } = await connectClient(mainUrl(), { token: otherToken });
      const otherWorld = ((structured((await other.callTool({ name: "create_world", arguments: { name: `Theirs ${uid()}`, theme: "x" } })) as CallToolResult).world as Json).id) as string;
      const misuses: [string, Json, (args: Json) => Promise<CallToolResult>][] = [
        ["another world", { worldId: b, limit: 2, cursor }, (args) => call("list_characters", args)],
        ["another filter", { worldId: a, role: "Smith", limit: 2, cursor }, (args) => call("list_characters", args)],
        ["another list", { worldId: a, limit: 2, cursor }, (args) => call("list_locations", args)],
        ["the world list", { limit: 2, cursor }, (args) => call("list_worlds", args)],
        ["another user", { worldId: otherWorld, limit: 2, cursor }, async (args) => (await other.callTool({ name: "list_characters", arguments: args })) as CallToolResult],
      ];
      for (const [what, args, run] of misuses) {
        const r = await run(args);
        expect(r.isError, what).toBe(true);
        expect(textOf(r), what).toMatch(/Invalid cursor: it was issued for another list/);
      }
      await other.close();
    });

    it("unknown ids, bad cursors, domain problems and (2025-11-25) schema violations are isError results", async () => {
      const { client: c, call } = await client();
      for (const [name, args] of [
        ["get_world", { worldId: "nope" }],
        ["update_world", { worldId: "nope", name: "X" }],
        ["delete_world", { worldId: "nope" }],
        ["get_character", { characterId: "nope" }],
        ["update_character", { characterId: "nope", name: "X" }],
        ["create_character", { worldId: "nope", name: "X" }],
        ["list_characters", { worldId: "nope" }],
        ["create_location", { worldId: "nope", name: "X" }],
        ["list_locations", { worldId: "nope" }],
      ] as const) {
        const r = await call(name, args);
        expect(r.isError, name).toBe(true);
        expect(textOf(r), name).toMatch(/not found/);
      }
      expect((await call("list_worlds", { cursor: "garbage" })).isError).toBe(true);
      const a = ((ok(await call("create_world", { name: `A ${uid()}`, theme: "x" })).world as Json).id) as string;
      const b = ((ok(await call("create_world", { name: `B ${uid()}`, theme: "x" })).world as Json).id) as string;
      const placeInA = ((ok(await call("create_location", { worldId: a, name: "Here" })).location as Json).id) as string;
      const cross = await call("create_location", { worldId: b, name: "There", parentId: placeInA });
      expect(cross.isError).toBe(true);
      expect(textOf(cross)).toMatch(/another world/);
      // Locations nest at most MAX_LOCATION_DEPTH levels: "Here" is level 1, each call one deeper.
      let deepest = placeInA;
      for (let level = 2; level <= MAX_LOCATION_DEPTH; level++) {
        deepest = ((ok(await call("create_location", { worldId: a, name: `Level ${level}`, parentId: deepest })).location as Json).id) as string;
      }
      const tooDeep = await call("create_location", { worldId: a, name: "Below the bottom", parentId: deepest });
      expect(tooDeep.isError).toBe(true);
      expect(textOf(tooDeep)).toMatch(new RegExp(`^Locations nest at most ${MAX_LOCATION_DEPTH} levels deep, and "${deepest}" is at the deepest level`));
      expect((await call("update_world", { worldId: a })).isError).toBe(true);
      // server/tools §error handling (2025-11-25): an input validation error is a tool error too, naming the field.
      const tooLong = (await c.callTool({ name: "create_world", arguments: { name: "x".repeat(121), theme: "t" } })) as CallToolResult;
      expect(tooLong.isError).toBe(true);
      expect(tooLong.structuredContent).toMatchObject({ error: { code: "invalid_argument" } });
      expect(textOf(tooLong)).toMatch(/^Invalid arguments for tool create_world: name: /);
    });

    it("delete_world without elicitation support deletes nothing", async () => {
      const { client: c } = await connectClient(mainUrl(), { token });
      const created = (await c.callTool({ name: "create_world", arguments: { name: `NoAsk ${uid()}`, theme: "x" } })) as CallToolResult;
      const worldId = ((structured(created).world as Json).id) as string;
      const r = (await c.callTool({ name: "delete_world", arguments: { worldId } })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(((await c.callTool({ name: "get_world", arguments: { worldId } })) as CallToolResult).isError).toBeFalsy();
    });

    it("delete_world without elicitation deletes only with confirmName equal to the world's exact name (the host asked the user)", async () => {
      const { client: c } = await connectClient(mainUrl(), { token });
      const name = `HostAsks ${uid()}`;
      const created = (await c.callTool({ name: "create_world", arguments: { name, theme: "x" } })) as CallToolResult;
      const worldId = ((structured(created).world as Json).id) as string;
      const wrong = (await c.callTool({ name: "delete_world", arguments: { worldId, confirmName: name.toLowerCase() } })) as CallToolResult;
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toContain("confirmName");
      expect(((await c.callTool({ name: "get_world", arguments: { worldId } })) as CallToolResult).isError).toBeFalsy();
      const right = (await c.callTool({ name: "delete_world", arguments: { worldId, confirmName: name } })) as CallToolResult;
      expect(right.isError).toBeFalsy();
      expect(structured(right)).toMatchObject({ deleted: true, worldId, name });
      expect(((await c.callTool({ name: "get_world", arguments: { worldId } })) as CallToolResult).isError).toBe(true);
    });

    it("50 parallel create_world calls make exactly 50 rows", async () => {
      const { call } = await client();
      const tag = `Parallel-${uid()}`;
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => call("create_world", { name: `${tag} #${i}`, theme: "swarm" })));
      for (const r of results) ok(r);
      expect(new Set(results.map((r) => (structured(r).world as Json).id)).size).toBe(50);

      // PostgreSQL: count the rows themselves. (PGlite's folder belongs to its server process; there
      // the pages below are the proof: 50 distinct ids, nothing more.)
      if (database === "PostgreSQL") await expectRowCount(subject, tag, 50);

      // And through list_worlds, page by page.
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = ok(await call("list_worlds", { nameContains: tag, limit: 20, ...(cursor ? { cursor } : {}) }));
        for (const w of page.worlds as Json[]) seen.add(w.id as string);
        cursor = page.nextCursor as string | undefined;
        pages += 1;
      } while (cursor && pages < 10);
      expect(seen.size).toBe(50);
      expect(pages).toBe(3);
    });

    it("a page of long records is cut to stay under 10 KB, and the cursor carries on where it stopped", async () => {
      const { call } = await client();
      const tag = `Long-${uid()}`;
      const long = "é".repeat(1990);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => call("create_world", { name: `${tag} ${i} ${"ř".repeat(100)}`, theme: "ť".repeat(60), tone: "ŵ".repeat(120), description: long })),
      );
      const seen = new Set<string>();
      let cursor: string | undefined;
      let first = true;
      for (let i = 0; i < 20; i += 1) {
        const page = ok(await call("list_worlds", { nameContains: tag, limit: 50, ...(cursor ? { cursor } : {}) }));
        if (first) expect((page.worlds as Json[]).length).toBeLessThan(40);
        first = false;
        for (const w of page.worlds as Json[]) seen.add(w.id as string);
        cursor = page.nextCursor as string | undefined;
        if (!cursor) break;
      }
      expect(seen.size).toBe(40);
    });
  });

  // ── 2026-07-28: delete_world's confirmation as a multi-round-trip input request ──────────────

  const V = "2026-07-28";
  const CAPS = { elicitation: { form: {} } };

  async function call2026(id: string, name: string, args: Json, extra: Json = {}, capabilities: Json = CAPS): Promise<Json> {
    const body = {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": capabilities },
        ...extra,
      },
    };
    const res = await fetch(mainUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": name, authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    const messages = (sse ? sseMessages(text) : [JSON.parse(text)]) as Json[];
    const reply = messages.find((m) => m.id === id);
    expect(reply?.result, text.slice(0, 300)).toBeDefined();
    return reply!.result as Json;
  }

  describe("WorldCrafter data tools (2026-07-28)", () => {
    it("delete_world asks through input_required; the retry with the answer deletes", async () => {
      const created = await call2026("c1", "create_world", { name: `Stateless ${uid()}`, theme: "void" });
      const worldId = ((created.structuredContent as Json).world as Json).id as string;

      const r1 = await call2026("d1", "delete_world", { worldId });
      expect(r1.resultType).toBe("input_required");
      const requests = r1.inputRequests as Record<string, Json>;
      expect(Object.keys(requests)).toEqual(["confirm_delete"]);
      expect(requests.confirm_delete).toMatchObject({ method: "elicitation/create", params: { mode: "form", requestedSchema: { required: ["confirm"] } } });

      // Declined: the world stays.
      const declined = await call2026("d2", "delete_world", { worldId }, { inputResponses: { confirm_delete: { action: "decline" } }, requestState: r1.requestState });
      expect(declined.resultType).toBe("complete");
      expect(declined.structuredContent).toMatchObject({ deleted: false, worldId });
      expect((await call2026("g1", "get_world", { worldId })).isError).toBeFalsy();

      // Asked again and accepted: deleted.
      const r2 = await call2026("d3", "delete_world", { worldId });
      expect(r2.resultType).toBe("input_required");
      const done = await call2026("d4", "delete_world", { worldId }, { inputResponses: { confirm_delete: { action: "accept", content: { confirm: true } } }, requestState: r2.requestState });
      expect(done.resultType).toBe("complete");
      expect(done.structuredContent).toMatchObject({ deleted: true, worldId });
      const gone = await call2026("g2", "get_world", { worldId });
      expect(gone.isError).toBe(true);
    });

    it("a confirmation answered without being asked (no requestState) deletes nothing: the question comes", async () => {
      const created = await call2026("c2", "create_world", { name: `Guessed ${uid()}`, theme: "void" });
      const worldId = ((created.structuredContent as Json).world as Json).id as string;
      const guessed = await call2026("d5", "delete_world", { worldId }, { inputResponses: { confirm_delete: { action: "accept", content: { confirm: true } } } });
      expect(guessed.resultType).toBe("input_required");
      expect(Object.keys(guessed.inputRequests as Json)).toEqual(["confirm_delete"]);
      expect((await call2026("g3", "get_world", { worldId })).isError).toBeFalsy();
    });

    it.runIf(database === "PostgreSQL")("the stateless server serves the same data (one database for both instances)", async () => {
      const created = await call2026("c2", "create_world", { name: `Shared ${uid()}`, theme: "void" });
      const worldId = ((created.structuredContent as Json).world as Json).id as string;
      const res = await fetch(`${inject("statelessUrl")}/api/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: JSON_AND_SSE,
          "mcp-protocol-version": V,
          "mcp-method": "tools/call",
          "mcp-name": "get_world",
          // Same subject, the other instance's audience.
          authorization: `Bearer ${await tokenFor(inject("statelessUrl"), subject)}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_world", arguments: { worldId }, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } },
        }),
      });
      const text = await res.text();
      const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
      const reply = (sse ? sseMessages(text) : [JSON.parse(text)]).find((m) => (m as Json).id === 1) as Json;
      expect((reply.result as Json).structuredContent).toMatchObject({ world: { id: worldId, counts: { characters: 0, locations: 0 } } });
    });
  });
});

/** The rows of `subject` whose name starts with `tag`, counted in PostgreSQL itself. */
async function expectRowCount(subject: string, tag: string, expected: number): Promise<void> {
  const rows = await queryServersDatabase<{ n: number }>(`SELECT count(*)::int AS n FROM $schema."World" WHERE "ownerSubject" = $2 AND name LIKE $1`, [`${tag} #%`, subject]);
  expect(rows[0]?.n).toBe(expected);
}
