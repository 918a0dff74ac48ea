/**
 * What the server says about itself to hosts, per protocol revision (issue 24, item 7):
 * - icons (2025-11-25 basic §icons) on serverInfo and every tool, as data: URIs (no origin to
 *   trust), in 2025-11-25 and 2026-07-28 — and none in 2025-06-18, which has no `icons`;
 * - the MCP Apps extension `io.modelcontextprotocol/ui` announced in initialize and server/discover
 *   capabilities, and read from the client's: initialize capabilities (2025) or each request's
 *   `_meta` client capabilities (2026-07-28). A client that shows no widgets gets the text and
 *   structuredContent without the widget-only `_meta`; ChatGPT (its `openai/*` request `_meta`) gets it.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { newSubject, tokenFor } from "../support/auth";
import { connectClient } from "../support/sdk-client";
import { JSON_AND_SSE, post } from "../support/mcp-http";

type Json = Record<string, unknown>;
const UI = "io.modelcontextprotocol/ui";
const MCP_APP = "text/html;profile=mcp-app";
const V2026 = "2026-07-28";
const APPS_HOST = { extensions: { [UI]: { mimeTypes: [MCP_APP] } } };

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function expectIcons(icons: unknown, where: string) {
  expect(Array.isArray(icons), `${where} has icons`).toBe(true);
  for (const icon of icons as Json[]) {
    expect(icon).toMatchObject({ mimeType: "image/svg+xml", sizes: ["any"] });
    const src = icon.src as string;
    expect(src.startsWith("data:image/svg+xml;base64,"), where).toBe(true);
    const svg = Buffer.from(src.slice("data:image/svg+xml;base64,".length), "base64").toString("utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24">.*<\/svg>$/);
    expect(svg).not.toMatch(/<script|on\w+=|href/i);
  }
}

describe("icons and the MCP Apps extension, per revision", () => {
  const url = () => `${inject("statefulUrl")}/api/mcp`;
  let token = "";
  beforeAll(async () => {
    token = await tokenFor(inject("statefulUrl"), newSubject("host"));
  });

  /** A 2026-07-28 request to the product endpoint. */
  async function modern(method: string, params: Json, capabilities: Json = {}, meta: Json = {}): Promise<Json> {
    const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": capabilities, ...meta } },
    };
    const reply = await post(url(), body, { accept: JSON_AND_SSE, authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": method, ...name });
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
    const result = (reply.json as { result?: unknown }).result;
    if (!isRecord(result)) throw new Error(`no result: ${reply.text.slice(0, 300)}`);
    return result;
  }

  it("2025-11-25: serverInfo and every tool carry icons; initialize announces the MCP Apps extension", async () => {
    const { client } = await connectClient(url(), { token });
    expectIcons(client.getServerVersion()?.icons, "serverInfo");
    expect(client.getServerCapabilities()?.extensions).toEqual({ [UI]: { mimeTypes: [MCP_APP] } });
    const { tools } = await client.listTools();
    for (const tool of tools) expectIcons(tool.icons, tool.name);
    // Tool.execution is this revision's (tasks): export_world may run as one.
    expect(tools.find((t) => t.name === "export_world")?.execution).toEqual({ taskSupport: "optional" });
  });

  it("2025-06-18 has no icons: neither serverInfo nor tools carry them", async () => {
    const { client } = await connectClient(url(), { token, protocolVersion: "2025-06-18" });
    expect(client.getServerVersion()).not.toHaveProperty("icons");
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) expect(tool, tool.name).not.toHaveProperty("icons");
    // Nor Tool.execution, which arrived with tasks in 2025-11-25 (outside protocol audit).
    for (const tool of tools) expect(tool, tool.name).not.toHaveProperty("execution");
  });

  it("2026-07-28: server/discover announces the extension and the full serverInfo; tools/list carries icons; other results stay lean", async () => {
    const discovered = await modern("server/discover", {});
    // Beside durable tasks, which 2026-07-28 announces as an extension too (docs/tasks.md).
    expect((discovered.capabilities as Json).extensions).toEqual({ [UI]: { mimeTypes: [MCP_APP] }, "io.modelcontextprotocol/tasks": {} });
    expectIcons(((discovered._meta as Json)["io.modelcontextprotocol/serverInfo"] as Json).icons, "discover serverInfo");
    const listed = await modern("tools/list", {});
    for (const tool of listed.tools as Json[]) expectIcons(tool.icons, String(tool.name));
    // 2026-07-28's Tool has no execution: its tasks extension lets the server decide per request (SEP-2663).
    for (const tool of listed.tools as Json[]) expect(tool, String(tool.name)).not.toHaveProperty("execution");
    // Every other result names the server without its icons (they travel once, in discover).
    expect((listed._meta as Json)["io.modelcontextprotocol/serverInfo"]).not.toHaveProperty("icons");
  });

  it("2025-11-25: the widget-only _meta goes to MCP Apps hosts and ChatGPT, not to a client that shows no widgets", async () => {
    const plain = await connectClient(url(), { token });
    const apps = await connectClient(url(), { token, capabilities: APPS_HOST });
    const created = (await plain.client.callTool({ name: "create_world", arguments: { name: "Surface World" } })) as CallToolResult;
    const worldId = (created.structuredContent as { world: { id: string } }).world.id;
    expect(created._meta?.["worldcrafter/world"]).toBeUndefined();

    const text = (await plain.client.callTool({ name: "get_world", arguments: { worldId } })) as CallToolResult;
    expect(text.isError).toBeFalsy();
    expect((text.content[0] as { text: string }).text).toContain("Surface World");
    expect(text.structuredContent).toMatchObject({ world: { id: worldId } });
    expect(text._meta?.["worldcrafter/world"]).toBeUndefined();

    const widget = (await apps.client.callTool({ name: "get_world", arguments: { worldId } })) as CallToolResult;
    expect(widget._meta?.["worldcrafter/world"]).toMatchObject({ id: worldId });

    const chatgpt = (await plain.client.callTool({ name: "get_world", arguments: { worldId }, _meta: { "openai/locale": "en-US" } })) as CallToolResult;
    expect(chatgpt._meta?.["worldcrafter/world"]).toMatchObject({ id: worldId });
  });

  it("2026-07-28: each request's _meta client capabilities decide it", async () => {
    const created = await modern("tools/call", { name: "create_world", arguments: { name: "Modern Surface" } }, APPS_HOST);
    const worldId = (created.structuredContent as { world: { id: string } }).world.id;
    expect((created._meta as Json)["worldcrafter/world"]).toMatchObject({ id: worldId });
    const plain = await modern("tools/call", { name: "get_world", arguments: { worldId } });
    expect(plain.structuredContent).toMatchObject({ world: { id: worldId } });
    expect(plain._meta as Json).not.toHaveProperty("worldcrafter/world");
  });
});
