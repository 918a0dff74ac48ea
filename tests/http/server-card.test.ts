import { describe, expect, inject, it } from "vitest";

/**
 * What this file proves: /.well-known/mcp/server-card (SEP-2127) describes the running server as
 * a client would find it by connecting: the endpoint URL, every protocol revision it speaks,
 * OAuth sign-in, its capabilities, and its tools, resources and prompts exactly as the list
 * methods send them.
 */

type Json = Record<string, unknown>;

describe("MCP Server Card", () => {
  it("describes the endpoint, its revisions and sign-in, and lists what tools/list lists", async () => {
    const base = inject("statefulUrl");
    const res = await fetch(`${base}/.well-known/mcp/server-card`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const card = (await res.json()) as Json & { remotes: Json[]; tools: Json[]; prompts: Json[]; resources: Json[] };
    expect(card.$schema).toBe("https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json");
    expect(String(card.name).split("/")).toHaveLength(2);
    expect(card).toMatchObject({ version: expect.any(String), title: "WorldCrafter", capabilities: { tools: { listChanged: true } } });
    expect(card.remotes).toEqual([
      { type: "streamable-http", url: `${base}/api/mcp`, supportedProtocolVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], authentication: { required: false, schemes: ["oauth2"] } },
    ]);

    // The same descriptors the server sends from tools/list (2026-07-28, anonymous in mixed mode).
    const listed = await fetch(`${base}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }),
    });
    const tools = ((await listed.json()) as { result: { tools: Json[] } }).result.tools;
    expect(card.tools.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    expect(card.tools.find((t) => t.name === "create_world")).toEqual(tools.find((t) => t.name === "create_world"));
    expect(card.prompts.length).toBeGreaterThan(0);
    expect(card.resources.length).toBeGreaterThan(0);
  });
});
