/**
 * The tools' contracts (issue 24, item 7), read off the wire: every tool tools/list publishes is
 * called with valid input, and each structuredContent validates against the outputSchema the tool
 * advertises (JSON Schema 2020-12, ajv); a tool without an output schema or without a call here
 * fails the walk. Tool errors carry `{error: {code, id, message}}` in structuredContent — which the
 * official 1.x client, validating against the same schema, accepts. delete_world's result asks
 * ChatGPT to close its widget.
 */
import { inject, beforeAll, describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { newSubject, tokenFor } from "../support/auth";
import { connectClient } from "../support/sdk-client";
import { PRODUCT_TOOLS } from "../support/product-tools";
import { TOOL_ERROR_CODES } from "../../lib/mcp";

type Json = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe("tool contracts (2025-11-25, SDK 1.x client)", () => {
  const url = () => `${inject("statefulUrl")}/api/mcp`;
  let token = "";
  beforeAll(async () => {
    token = await tokenFor(inject("statefulUrl"), newSubject("contracts"));
  });

  async function session() {
    const { client } = await connectClient(url(), { token });
    const { tools } = await client.listTools();
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    const call = async (name: string, args: Json = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { client, tools, byName, call };
  }

  function validatorFor(tool: Tool) {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    expect(tool.outputSchema, `${tool.name} has no outputSchema`).toBeDefined();
    return ajv.compile(tool.outputSchema as Json);
  }

  it("every tool's structuredContent validates against its advertised outputSchema", async () => {
    const { tools, byName, call } = await session();
    expect(tools.map((t) => t.name).sort()).toEqual(expect.arrayContaining(PRODUCT_TOOLS));

    // Valid input for each tool, in an order where earlier results give later ids.
    const results = new Map<string, CallToolResult>();
    const run = async (name: string, args: Json) => {
      const r = await call(name, args);
      expect(r.isError, `${name}: ${JSON.stringify(r).slice(0, 400)}`).toBeFalsy();
      results.set(name, r);
      return r.structuredContent as Json;
    };
    const world = (await run("create_world", { name: "Contract World", description: "Mist and brass" })).world as Json;
    const worldId = world.id as string;
    const character = (await run("create_character", { worldId, name: "Ada", role: "engineer", traits: ["curious"] })).character as Json;
    const place = (await run("create_location", { worldId, name: "Harbour", kind: "port" })).location as Json;
    await run("create_location", { worldId, name: "Lighthouse", parentId: place.id });
    await run("get_world", { worldId });
    await run("update_world", { worldId, tone: "hopeful" });
    await run("list_worlds", { limit: 5 });
    await run("get_character", { characterId: character.id });
    await run("update_character", { characterId: character.id, backstory: "Built the first engine." });
    await run("list_characters", { worldId });
    await run("list_locations", { worldId });
    await run("search", { query: "Contract" });
    await run("fetch", { id: `world:${worldId}` });
    await run("draft_world_outline", { name: "Outline", theme: "steampunk" });
    await run("suggest_names", { style: "elvish", kind: "place", count: 3 });
    const exported = await call("export_world", { worldId });
    results.set("export_world", exported);
    const markdown = exported.content.find((b): b is Extract<typeof b, { type: "resource" }> => b.type === "resource" && b.resource.mimeType === "text/markdown");
    expect(markdown && "text" in markdown.resource).toBe(true);
    await run("import_world", { document: markdown && "text" in markdown.resource ? markdown.resource.text : "", format: "markdown" });
    await run("delete_world", { worldId, confirmName: "Contract World" });

    for (const tool of tools) {
      const result = results.get(tool.name);
      expect(result, `no call of ${tool.name} in this walk: add one`).toBeDefined();
      const validate = validatorFor(tool);
      expect(validate(result!.structuredContent), `${tool.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(byName.get("delete_world")).toBeDefined();
  });

  it("tool errors carry a code and a reference id in structuredContent, valid against the same schema", async () => {
    const { byName, call } = await session();
    const world = (await call("create_world", { name: "Error World" })).structuredContent as { world: { id: string } };

    const cases: [string, Json, keyof typeof TOOL_ERROR_CODES][] = [
      ["get_world", { worldId: "no-such-world" }, "not_found"],
      ["update_world", { worldId: world.world.id }, "invalid_argument"],
      ["list_worlds", { cursor: "not-a-cursor" }, "invalid_argument"],
      ["delete_world", { worldId: world.world.id }, "confirmation_required"],
      ["fetch", { id: "planet:1" }, "invalid_argument"],
    ];
    for (const [name, args, code] of cases) {
      // The 1.x client validates any structuredContent against the outputSchema: it does not throw here.
      const r = await call(name, args);
      expect(r.isError, name).toBe(true);
      const error = (r.structuredContent as { error: Json }).error;
      expect(error, name).toEqual({ code, id: expect.stringMatching(/^[0-9a-f]{8}$/), message: expect.any(String) });
      expect((r.content[0] as { text: string }).text).toBe(error.message);
      const validate = validatorFor(byName.get(name)!);
      expect(validate(r.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // Every code is documented in one table.
    expect(Object.keys(TOOL_ERROR_CODES)).toEqual(expect.arrayContaining(cases.map(([, , code]) => code)));
  });

  it("an anonymous call of a tool that needs an account is sign_in_required, with the linking challenge", async () => {
    const { client } = await connectClient(url());
    const r = (await client.callTool({ name: "list_worlds", arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { error: Json }).error.code).toBe("sign_in_required");
    expect(r._meta?.["mcp/www_authenticate"]).toBeDefined();
  });

  it("delete_world's result asks ChatGPT to close the widget (openai/closeWidget), and only ChatGPT", async () => {
    const { client, call } = await session();
    // ChatGPT marks its requests with openai/* _meta (seed 002); seed 003 gives MCP Apps no such key.
    const fromChatGpt = async (args: Json) => (await client.callTool({ name: "delete_world", arguments: args, _meta: { "openai/locale": "en-US" } })) as CallToolResult;
    for (const [name, remove] of [["Closing World", fromChatGpt], ["Closing World II", (args: Json) => call("delete_world", args)]] as const) {
      const world = (await call("create_world", { name })).structuredContent as { world: { id: string } };
      const kept = await remove({ worldId: world.world.id, confirmName: "Wrong Name" });
      expect(kept._meta?.["openai/closeWidget"]).toBeUndefined();
      const deleted = await remove({ worldId: world.world.id, confirmName: name });
      expect(deleted.isError).toBeFalsy();
      expect(deleted._meta?.["openai/closeWidget"], name).toBe(remove === fromChatGpt ? true : undefined);
    }
  });
});
