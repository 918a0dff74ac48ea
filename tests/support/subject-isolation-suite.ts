import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountWorldcrafter, type DatabaseKind, type InProcessApp } from "./in-process-app";

/**
 * Subject B can neither read, list, search, fetch, update, export nor delete subject A's data
 * through any tool, resource, prompt or completion — the same answer as for an id that does not
 * exist — while A still can. Run once per database (the *.test.ts files beside the worlds tests).
 * The export's cancellation is proven here too, against the same real database.
 */

type Json = Record<string, unknown>;

export function subjectIsolationSuite(kind: DatabaseKind): void {
  describe(`subject isolation on ${kind}`, () => {
    let app: InProcessApp;
    const A = "alice";
    const B = "bob";
    let worldId = "";
    let characterId = "";
    let locationId = "";

    const tool = async (subject: string, name: string, args: Json) => {
      const { result, error } = await app.request(subject, "tools/call", { name, arguments: args });
      expect(error, `${name} as ${subject}`).toBeUndefined();
      return result as { isError?: boolean; structuredContent?: Json; content: { text?: string }[] };
    };

    beforeAll(async () => {
      app = await mountWorldcrafter(kind);
      const world = await tool(A, "create_world", { name: "Alicia's Secret Realm", theme: "aliceonly", description: "Hidden keep of whispers." });
      worldId = ((world.structuredContent!.world as Json).id as string);
      const character = await tool(A, "create_character", { worldId, name: "Whisperwarden", role: "keeper", backstory: "Guards whispers." });
      characterId = ((character.structuredContent!.character as Json).id as string);
      const location = await tool(A, "create_location", { worldId, name: "Whisper Keep", kind: "castle" });
      locationId = ((location.structuredContent!.location as Json).id as string);
    }, 120_000);

    afterAll(async () => {
      await app?.close();
    });

    it("every tool that names A's records answers B with the same isError as for a missing id", async () => {
      const calls: [string, Json][] = [
        ["get_world", { worldId }],
        ["update_world", { worldId, name: "Stolen" }],
        ["delete_world", { worldId }],
        ["export_world", { worldId }],
        ["create_character", { worldId, name: "Intruder" }],
        ["list_characters", { worldId }],
        ["get_character", { characterId }],
        ["update_character", { characterId, name: "Turncoat" }],
        ["create_location", { worldId, name: "Annex" }],
        ["list_locations", { worldId }],
        ["fetch", { id: `world:${worldId}` }],
        ["fetch", { id: `character:${characterId}` }],
        ["fetch", { id: `location:${locationId}` }],
      ];
      for (const [name, args] of calls) {
        const r = await tool(B, name, args);
        expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        expect(r.content[0]?.text, name).toMatch(/not found/);
      }
      // A parent location of A's cannot be used by B inside B's own world either.
      const bWorld = ((await tool(B, "create_world", { name: "Bob's Lands", theme: "b" })).structuredContent!.world as Json).id as string;
      const borrowed = await tool(B, "create_location", { worldId: bWorld, name: "Annex", parentId: locationId });
      expect(borrowed.isError).toBe(true);
    });

    it("lists and search show B nothing of A's; A's data is untouched and still A's", async () => {
      const worlds = (await tool(B, "list_worlds", { limit: 50 })).structuredContent!.worlds as Json[];
      expect(worlds.map((w) => w.id)).not.toContain(worldId);
      expect((await tool(B, "list_worlds", { theme: "aliceonly" })).structuredContent!.worlds).toEqual([]);
      for (const query of ["whisper", "Alicia", "aliceonly", "keeper"]) {
        expect((await tool(B, "search", { query })).structuredContent!.results, query).toEqual([]);
      }
      // A still sees everything, unchanged.
      const mine = await tool(A, "get_world", { worldId });
      expect(mine.structuredContent!.world).toMatchObject({ name: "Alicia's Secret Realm", counts: { characters: 1, locations: 1 } });
      expect(((await tool(A, "search", { query: "whisper" })).structuredContent!.results as Json[]).length).toBe(3);
    });

    // 2026-07-28 answers an unknown resource with -32602 and the uri in data (-32002 before it).
    it("resources: B reads 'resource not found' for every one of A's URIs, and a worlds://list without them", async () => {
      const missing = await app.request(B, "resources/read", { uri: "world://missing" });
      expect(missing.error?.code).toBe(-32602);
      for (const uri of [`world://${worldId}`, `world://${worldId}/characters`, `world://${worldId}/export.md`, `world://${worldId}/export.json`, `character://${characterId}`, `location://${locationId}`]) {
        const { error } = await app.request(B, "resources/read", { uri });
        expect(error, uri).toMatchObject({ code: missing.error!.code, message: missing.error!.message, data: { uri } });
        const { result } = await app.request(A, "resources/read", { uri });
        expect(result?.contents, uri).toBeDefined();
      }
      const { result } = await app.request(B, "resources/read", { uri: "worlds://list" });
      const listed = JSON.parse(((result!.contents as Json[])[0] as { text: string }).text) as { worlds: Json[] };
      expect(listed.worlds.map((w) => w.id)).not.toContain(worldId);
    });

    it("prompts and completion: B cannot name A's world, and no suggestion reveals A's ids, names or themes", async () => {
      for (const world of [worldId, "Alicia's Secret Realm"]) {
        const { error } = await app.request(B, "prompts/get", { name: "develop-character", arguments: { world } });
        expect(error?.code, world).toBe(-32602);
      }
      const complete = async (subject: string, ref: Json, name: string, value: string, context?: Record<string, string>) => {
        const { result } = await app.request(subject, "completion/complete", { ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) });
        return (result!.completion as { values: string[] }).values;
      };
      const probes: [Json, string, string, Record<string, string>?][] = [
        [{ type: "ref/prompt", name: "develop-character" }, "world", "Alicia"],
        [{ type: "ref/prompt", name: "develop-character" }, "character", "Whisper", { world: worldId }],
        [{ type: "ref/prompt", name: "describe-location" }, "location", "Whisper", { world: worldId }],
        [{ type: "ref/prompt", name: "start-fantasy-world" }, "theme", "alice"],
        [{ type: "ref/resource", uri: "world://{worldId}" }, "worldId", worldId],
        [{ type: "ref/resource", uri: "world://{worldId}/characters" }, "worldId", worldId.slice(0, 4)],
        [{ type: "ref/resource", uri: "character://{characterId}" }, "characterId", characterId],
      ];
      for (const [ref, name, value, context] of probes) {
        const values = await complete(B, ref, name, value, context);
        expect(values.join(" "), `${name}=${value}`).not.toMatch(/Alicia|Whisper|aliceonly/);
        expect(values, `${name}=${value}`).not.toContain(worldId);
        expect(values).not.toContain(characterId);
      }
      // The same probes suggest A's own data to A.
      expect(await complete(A, { type: "ref/prompt", name: "develop-character" }, "world", "Alicia")).toEqual(["Alicia's Secret Realm"]);
      expect(await complete(A, { type: "ref/prompt", name: "start-fantasy-world" }, "theme", "alice")).toEqual(["aliceonly"]);
    });

    it("B's delete, update and export attempts left A's world whole", async () => {
      const r = await tool(A, "export_world", { worldId });
      expect(r.structuredContent).toMatchObject({ name: "Alicia's Secret Realm", counts: { characters: 1, locations: 1 } });
    });

    it("export_world stops at the next step once its signal is aborted, and reports nothing after", async () => {
      const { exportWorld, EXPORT_PAGE } = await import("../../lib/worlds/export/world-export");
      const big = ((await tool(A, "create_world", { name: "Crowded", theme: "x" })).structuredContent!.world as Json).id as string;
      for (let i = 0; i < EXPORT_PAGE * 2; i += 25) {
        await Promise.all(Array.from({ length: 25 }, (_, j) => tool(A, "create_character", { worldId: big, name: `Crowd ${i + j}` })));
      }
      const controller = new AbortController();
      const steps: number[] = [];
      const run = exportWorld(A, big, {
        signal: controller.signal,
        onStep: async ({ step }) => {
          steps.push(step);
          if (step === 2) controller.abort(new Error("cancelled by the test"));
        },
      });
      await expect(run).rejects.toThrow("cancelled by the test");
      expect(steps).toEqual([1, 2]);
      // Not cancelled, the same export runs to its end: world + 3 character pages + 1 location page + render.
      const all: number[] = [];
      const done = await exportWorld(A, big, { signal: new AbortController().signal, onStep: async ({ step }) => void all.push(step) });
      expect(done.characters).toBe(EXPORT_PAGE * 2);
      expect(all).toEqual([1, 2, 3, 4, 5, 6]);
    });
  });
}
