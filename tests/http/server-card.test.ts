import { describe, expect, inject, it } from "vitest";

/**
 * What this file proves: discovery as the Server Card extension specifies it
 * (modelcontextprotocol/experimental-ext-server-card, docs/discovery.md): the site's AI Catalog at
 * /.well-known/ai-catalog.json names WorldCrafter's MCP Server Card by URL; the card, at its
 * reserved location <streamable-http-url>/server-card (and at /.well-known/mcp/server-card), says
 * who the server is and how to connect — consistent with server/discover — and lists no
 * primitives. Both are readable from any origin, cacheable, and answer 304 to a matching ETag,
 * HEAD as GET, and other methods 405 with Allow.
 */

type Json = Record<string, unknown>;

const base = () => inject("statefulUrl");

async function discover(): Promise<Json> {
  const res = await fetch(`${base()}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }),
  });
  return ((await res.json()) as { result: Json }).result;
}

describe("discovery: AI Catalog and MCP Server Card", () => {
  it("the AI Catalog names the server card by URL, with a domain-anchored identifier", async () => {
    const res = await fetch(`${base()}/.well-known/ai-catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/ai-catalog+json");
    expect(await res.json()).toEqual({
      specVersion: "1.0",
      entries: [{ identifier: "urn:air:127.0.0.1:mcp:worldcrafter", type: "application/mcp-server-card+json", url: `${base()}/api/mcp/server-card` }],
    });
  });

  it("the card at the catalog's URL describes identity and connection only, as server/discover does", async () => {
    const catalog = (await (await fetch(`${base()}/.well-known/ai-catalog.json`)).json()) as { entries: { url: string }[] };
    const res = await fetch(catalog.entries[0]!.url, { headers: { accept: "application/mcp-server-card+json" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/mcp-server-card+json");
    const card = (await res.json()) as Json;
    expect(card.$schema).toBe("https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json");
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    // The test servers answer on 127.0.0.1: an address is not turned around like a domain.
    expect(card.name).toBe("127.0.0.1/worldcrafter");
    expect(Object.keys(card).sort()).toEqual(["$schema", "description", "icons", "name", "remotes", "title", "version", "websiteUrl"]);
    expect(card.remotes).toEqual([{ type: "streamable-http", url: `${base()}/api/mcp`, supportedProtocolVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] }]);

    const discovered = await discover();
    const serverInfo = (discovered._meta as Json)["io.modelcontextprotocol/serverInfo"] as Json;
    expect({ name: "worldcrafter", version: card.version, title: card.title, description: card.description, icons: card.icons }).toEqual({
      name: serverInfo.name,
      version: serverInfo.version,
      title: serverInfo.title,
      description: serverInfo.description,
      icons: serverInfo.icons,
    });
    expect((card.remotes as Json[])[0]!.supportedProtocolVersions).toEqual(discovered.supportedVersions);

    // The /.well-known alias serves the same document.
    const alias = await fetch(`${base()}/.well-known/mcp/server-card`);
    expect(await alias.json()).toEqual(card);
  });

  it("both are public, cacheable, and answer 304 to a matching If-None-Match", async () => {
    for (const path of ["/.well-known/ai-catalog.json", "/api/mcp/server-card"]) {
      const res = await fetch(`${base()}${path}`, { headers: { origin: "https://somewhere.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toBe("ETag");
      expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

      const again = await fetch(`${base()}${path}`, { headers: { "if-none-match": etag! } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      const stale = await fetch(`${base()}${path}`, { headers: { "if-none-match": '"other"' } });
      expect(stale.status).toBe(200);

      const preflight = await fetch(`${base()}${path}`, { method: "OPTIONS", headers: { origin: "https://somewhere.example", "access-control-request-method": "GET" } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET");
      expect(preflight.headers.get("access-control-allow-headers")).toBe("Content-Type, If-None-Match");
    }
  });
});

describe("discovery routes and HTTP methods", () => {
  const PATHS = ["/.well-known/ai-catalog.json", "/api/mcp/server-card", "/.well-known/mcp/server-card"];

  it.each(PATHS)("HEAD %s answers as GET, without the body (RFC 9110 §9.3.2)", async (path) => {
    const [get, head] = await Promise.all([fetch(`${base()}${path}`), fetch(`${base()}${path}`, { method: "HEAD" })]);
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(await head.text()).toBe("");
  });

  it.each(PATHS)("other methods on %s answer 405 with Allow (RFC 9110 §15.5.6)", async (path) => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${base()}${path}`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe("GET, HEAD, OPTIONS");
    }
  });
});
