import { describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, LATEST } from "../support/mcp-http";
import { applyCors, preflightResponse } from "../../lib/http/cors";

/**
 * CORS on the real server: allowed browser origins (ChatGPT, Claude, loopback tools such as MCP
 * Inspector) get the credentialed CORS headers on every route and every answer — successes and
 * refusals alike, so a page can read a 401 challenge or a 429's Retry-After — and any other
 * origin gets none (and /api/mcp refuses it outright: the DNS-rebinding check).
 */

const base = () => inject("statefulUrl");
const CHATGPT = "https://chatgpt.com";
const EVIL = "https://evil.example";

const ROUTES = [
  { path: "/api/mcp", methods: ["GET", "POST", "DELETE"] },
  { path: "/api/conformance/mcp", methods: ["GET", "POST", "DELETE"] },
  { path: "/.well-known/oauth-protected-resource", methods: ["GET"] },
  { path: "/.well-known/oauth-protected-resource/api/mcp", methods: ["GET"] },
  { path: "/.well-known/oauth-authorization-server", methods: ["GET"] },
  { path: "/.well-known/openid-configuration", methods: ["GET"] },
  { path: "/.well-known/jwks.json", methods: ["GET"] },
];

const REQUEST_HEADERS = ["content-type", "authorization", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name", "last-event-id", "mcp-param-region"];

function preflight(path: string, origin: string, method = "POST", headers = REQUEST_HEADERS) {
  return fetch(`${base()}${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers.join(", ") },
  });
}

const list = (value: string | null) => (value ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);

describe("CORS preflight on every route", () => {
  it.each(ROUTES)("$path: an allowed origin may send the MCP headers with credentials", async ({ path, methods }) => {
    const res = await preflight(path, CHATGPT, methods[0]);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(CHATGPT);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(list(res.headers.get("access-control-allow-methods"))).toEqual(expect.arrayContaining(methods.map((m) => m.toLowerCase())));
    if (path.includes("/mcp") && !path.startsWith("/.well-known")) {
      expect(list(res.headers.get("access-control-allow-headers"))).toEqual(expect.arrayContaining(REQUEST_HEADERS));
    }
    expect(list(res.headers.get("vary"))).toContain("origin");
  });

  it.each(ROUTES)("$path: another origin gets no CORS headers", async ({ path, methods }) => {
    const res = await preflight(path, EVIL, methods[0]);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-headers")).toBeNull();
    // The MCP endpoints refuse a foreign Origin outright (DNS rebinding); metadata just stays unreadable.
    if (!path.startsWith("/.well-known")) expect(res.status).toBe(403);
  });

  it("loopback origins (MCP Inspector) are allowed on any port", async () => {
    const res = await preflight("/api/mcp", "http://localhost:6274");
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
  });

  it("headers outside the transport's set are not granted", async () => {
    const res = await preflight("/api/mcp", CHATGPT, "POST", ["content-type", "x-internal-secret"]);
    expect(list(res.headers.get("access-control-allow-headers"))).not.toContain("x-internal-secret");
  });
});

describe("CORS on answers", () => {
  const initialize = (origin: string) =>
    fetch(`${base()}/api/mcp`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", accept: JSON_AND_SSE },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "cors", version: "1" } } }),
    });

  it("a success exposes the session id and the rate-limit headers to the page", async () => {
    const res = await initialize(CHATGPT);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(CHATGPT);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(list(res.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining(["mcp-session-id", "www-authenticate", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]),
    );
    expect(list(res.headers.get("vary"))).toContain("origin");
  });

  it("a refusal carries them too: the page can read a 401 challenge", async () => {
    const res = await fetch(`${base()}/api/mcp`, {
      method: "POST",
      headers: { origin: CHATGPT, "content-type": "application/json", accept: JSON_AND_SSE, authorization: "Bearer not.a.jwt" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe(CHATGPT);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("a foreign origin is refused with 403 and no CORS headers", async () => {
    const res = await initialize(EVIL);
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("metadata is readable by allowed pages and by non-browser clients", async () => {
    const page = await fetch(`${base()}/.well-known/oauth-protected-resource/api/mcp`, { headers: { origin: "https://claude.ai" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("access-control-allow-origin")).toBe("https://claude.ai");
    const foreign = await fetch(`${base()}/.well-known/oauth-protected-resource/api/mcp`, { headers: { origin: EVIL } });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const curl = await fetch(`${base()}/.well-known/oauth-protected-resource/api/mcp`);
    expect(curl.status).toBe(200);
  });
});

// RFC 9110 §9.3.2 (HEAD as GET, no content) and §15.5.6 (a 405 MUST carry Allow).
describe("methods on the metadata routes", () => {
  const GET_ONLY = [...ROUTES.filter((r) => r.path.startsWith("/.well-known/")).map((r) => r.path), "/api/auth/jwks"];

  it.each(GET_ONLY)("HEAD %s answers as GET does, without the body", async (path) => {
    const [get, head] = await Promise.all([fetch(`${base()}${path}`), fetch(`${base()}${path}`, { method: "HEAD" })]);
    // The built-in server is no OpenID provider: its openid-configuration is a 404 (metadata-routes.ts).
    expect(get.status).toBe(path === "/.well-known/openid-configuration" ? 404 : 200);
    expect(head.status).toBe(get.status);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(head.headers.get("cache-control")).toBe(get.headers.get("cache-control"));
    expect(await head.text()).toBe("");
  });

  it.each(ROUTES.filter((r) => r.path.startsWith("/.well-known/")).map((r) => r.path))("PUT, POST, PATCH and DELETE on %s answer 405 with Allow", async (path) => {
    for (const method of ["PUT", "POST", "PATCH", "DELETE"]) {
      const res = await fetch(`${base()}${path}`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe("GET, HEAD, OPTIONS");
    }
    expect((await preflight(path, CHATGPT, "GET")).headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("the authorization server's endpoints answer 405 with Allow too (each its own: tests/auth/oauth-conformance.test.ts)", async () => {
    const res = await fetch(`${base()}/api/auth/jwks`, { method: "PUT" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const form = await fetch(`${base()}/auth/submit/sign-in`, { method: "GET", redirect: "manual" });
    expect(form.status).toBe(405);
    expect(form.headers.get("allow")).toBe("OPTIONS, POST");
  });
});

describe("the CORS policy itself (lib/http/cors.ts)", () => {
  const policy = { allowedOrigins: ["https://app.example.com"], allowLoopback: false, methods: "POST, OPTIONS" };

  it("extends to configured origins, matches them exactly, and can exclude loopback", () => {
    const ask = (origin: string) =>
      preflightResponse(new Request("http://x/api/mcp", { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } }), policy);
    expect(ask("https://app.example.com").headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    for (const near of ["https://app.example.com.evil.com", "http://app.example.com", "https://APP.example.com:8443", "http://localhost:3000", "null"]) {
      expect(ask(near).headers.get("access-control-allow-origin"), near).toBeNull();
    }
    const answered = applyCors(new Response("{}"), new Request("http://x/api/mcp", { headers: { origin: "https://app.example.com" } }), policy);
    expect(answered.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
  });
});
