import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";

/**
 * What this file proves: discovery as the Server Card extension specifies it
 * (modelcontextprotocol/experimental-ext-server-card, docs/discovery.md): the site's AI Catalog at
 * /.well-known/ai-catalog.json names WorldCrafter's MCP Server Card by URL; the card, at its
 * reserved location <streamable-http-url>/server-card (and at /.well-known/mcp/server-card), says
 * who the server is and how to connect — consistent with server/discover — and lists no
 * primitives. Both are readable from any origin, cacheable, and answer 304 to a matching ETag,
 * HEAD as GET, and other methods 405 with Allow.
 *
 * Where no URL is configured (MCP_RESOURCE_URL, Vercel's production host), the documents name
 * the host the request reached: the Host header, or a trusted proxy's X-Forwarded-Host/-Proto,
 * never a client's; and a document built from forwarding headers names them in Vary, so no
 * shared cache hands it to another request (RFC 9111 §4.1).
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

describe("the host the documents name, with no URL configured", () => {
  /** Neither MCP_RESOURCE_URL nor Vercel's production host: the URL comes from the request. */
  const UNCONFIGURED = { MCP_RESOURCE_URL: "", VERCEL_PROJECT_PRODUCTION_URL: "", VERCEL: "", MCP_RATE_LIMITS: "0" };
  const FORGED = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
  let direct: RunningNextServer;
  let proxied: RunningNextServer;

  beforeAll(async () => {
    const env = { ...UNCONFIGURED, DATABASE_URL: inject("databaseUrl") };
    [direct, proxied] = await Promise.all([
      startNextServer({ env: { ...env, MCP_TRUSTED_PROXIES: "" } }),
      // The test client is the proxy: its X-Forwarded-* are a trusted proxy's.
      startNextServer({ env: { ...env, MCP_TRUSTED_PROXIES: "127.0.0.1" } }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([direct?.stop(), proxied?.stop()]);
  });

  /** A GET over node:http, which sends the Host it is given (fetch sends its own). */
  const get = (origin: string, path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; vary: string[]; cacheControl: string | undefined; text: string }>((resolve, reject) => {
      const req = httpRequest(`${origin}${path}`, { headers, signal: AbortSignal.timeout(10_000) }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          const vary = String(res.headers.vary ?? "").split(",").map((v) => v.trim().toLowerCase()).filter(Boolean);
          resolve({ status: res.statusCode ?? 0, vary, cacheControl: res.headers["cache-control"], text });
        });
      });
      req.on("error", reject);
      req.end();
    });
  const cardUrl = (text: string) => (JSON.parse(text) as { remotes: { url: string }[] }).remotes[0]!.url;

  it("a client's X-Forwarded-Host and -Proto are not believed: the documents name the Host the socket got", async () => {
    for (const path of ["/api/mcp/server-card", "/.well-known/mcp/server-card", "/.well-known/ai-catalog.json"]) {
      const res = await get(direct.url, path, FORGED);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain("evil.example");
      expect(res.text, path).toContain(direct.url);
      // Built from Host alone, which every cache keys on: public, varying on Accept only.
      expect(res.cacheControl, path).toBe("public, max-age=3600");
      expect(res.vary, path).toContain("accept");
      expect(res.vary, path).not.toContain("x-forwarded-host");
    }
    const named = await get(direct.url, "/api/mcp/server-card", { host: "other.example:8080", ...FORGED });
    expect(cardUrl(named.text)).toBe("http://other.example:8080/api/mcp");
  });

  it("nor do the OAuth metadata, the sign-in challenge or the home page take them", async () => {
    const metadata = await get(direct.url, "/.well-known/oauth-protected-resource/api/mcp", FORGED);
    expect(metadata.text).not.toContain("evil.example");
    // No sign-in here (no resource URL in production): a data tool answers with the challenge
    // ChatGPT reads (mixed mode), resource_metadata included.
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const call = await fetch(`${direct.url}/api/mcp`, {
      method: "POST",
      headers: { ...FORGED, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "list_worlds" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_worlds", arguments: {}, _meta: meta } }),
    });
    const challenge = JSON.stringify(((await call.json()) as { result: { _meta: Record<string, unknown> } }).result._meta["mcp/www_authenticate"]);
    expect(challenge).toContain("resource_metadata=");
    expect(challenge).not.toContain("evil.example");
    const home = await get(direct.url, "/", FORGED);
    expect(home.status).toBe(200);
    expect(home.text).not.toContain("evil.example");
  });

  it("a trusted proxy's are, and the documents say in Vary that they depend on them", async () => {
    const res = await get(proxied.url, "/api/mcp/server-card", FORGED);
    expect(cardUrl(res.text)).toBe("https://evil.example/api/mcp");
    expect(res.cacheControl).toBe("public, max-age=3600");
    expect(res.vary).toEqual(expect.arrayContaining(["accept", "x-forwarded-host", "x-forwarded-proto"]));
    // A proxy that appends: the value it wrote is the last; those before it are the client's.
    const appended = await get(proxied.url, "/api/mcp/server-card", { "x-forwarded-host": "evil.example, public.example", "x-forwarded-proto": "http, https" });
    expect(cardUrl(appended.text)).toBe("https://public.example/api/mcp");
  });

  it("a trusted proxy's odd values: a scheme in capitals, a value not believed, port 0, an IPv6 host", async () => {
    // Schemes are case-insensitive (RFC 3986 §3.1).
    const capitals = await get(proxied.url, "/api/mcp/server-card", { "x-forwarded-host": "public.example", "x-forwarded-proto": "HTTPS" });
    expect(cardUrl(capitals.text)).toBe("https://public.example/api/mcp");
    // Values not believed give the fallback, which still depended on them: Vary says so (RFC 9111 §4.1).
    for (const host of ["evil.example/x", "public.example:0"]) {
      const refused = await get(proxied.url, "/api/mcp/server-card", { "x-forwarded-host": host, "x-forwarded-proto": "https" });
      expect(refused.status, host).toBe(200);
      expect(refused.text, host).not.toContain("example");
      expect(refused.vary, host).toEqual(expect.arrayContaining(["accept", "x-forwarded-host", "x-forwarded-proto"]));
    }
    // An IPv6 host: no brackets or colons in the card's name or the catalog's URN (RFC 8141 §2).
    const v6 = { "x-forwarded-host": "[2001:db8::1]:8443", "x-forwarded-proto": "https" };
    const card = JSON.parse((await get(proxied.url, "/api/mcp/server-card", v6)).text) as { name: string; remotes: { url: string }[] };
    expect(card.name).toBe("2001-db8--1/worldcrafter");
    expect(card.remotes[0]!.url).toBe("https://[2001:db8::1]:8443/api/mcp");
    const catalog = JSON.parse((await get(proxied.url, "/.well-known/ai-catalog.json", v6)).text) as { entries: { identifier: string }[] };
    expect(catalog.entries[0]!.identifier).toBe("urn:air:2001-db8--1:mcp:worldcrafter");
  });
});
