import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { callTool2026 } from "../support/oauth-server";

/**
 * What this file proves: a production deployment made with the defaults (on Vercel, with no
 * database, no auth secret and no resource URL) does not crash or answer opaque 500s. It starts,
 * serves the open tools, and every refusal — the sign-in result of a data tool, the 503 for a
 * token, the authorization endpoints — and the home page name the variables to set.
 */

let server: RunningNextServer;
const MISSING = ["BETTER_AUTH_SECRET", "DATABASE_URL", "MCP_RESOURCE_URL"];

beforeAll(async () => {
  server = await startNextServer({
    env: { VERCEL: "1", DATABASE_URL: "", BETTER_AUTH_SECRET: "", MCP_RESOURCE_URL: "", VERCEL_PROJECT_PRODUCTION_URL: "", MCP_AUTH_MODE: "", MCP_AUTH_KEYS_DIR: "", MCP_RATE_LIMITS: "0" },
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe("a deployment missing its secret and database", () => {
  it("serves the open tools", async () => {
    const reply = await callTool2026(`${server.url}/api/mcp`, undefined, "suggest_names", { style: "elvish", count: 2 });
    expect(reply.status).toBe(200);
    expect((reply.body?.result as { isError?: boolean }).isError).toBeFalsy();
  });

  it("answers a data tool with a sign-in result that names every missing variable", async () => {
    const reply = await callTool2026(`${server.url}/api/mcp`, undefined, "list_worlds", {});
    const text = JSON.stringify(reply.body);
    for (const name of MISSING) expect(text).toContain(name);
  });

  it("answers a request with a token 503, naming the variables", async () => {
    const reply = await callTool2026(`${server.url}/api/mcp`, "some.token.value", "list_worlds", {});
    expect(reply.status).toBe(503);
    for (const name of MISSING) expect(JSON.stringify(reply.body)).toContain(name);
  });

  it("answers the authorization endpoints 503, naming the variables", async () => {
    const res = await fetch(`${server.url}/api/auth/oauth2/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: ["https://chatgpt.com/cb"] }) });
    expect(res.status).toBe(503);
    const text = await res.text();
    for (const name of MISSING) expect(text).toContain(name);
    const page = await fetch(`${server.url}/auth/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("BETTER_AUTH_SECRET");
  });

  it("answers every OAuth /.well-known document 503, naming the variables, never 500 and never cached", async () => {
    // The resource's own metadata too: without MCP_RESOURCE_URL it would name http://localhost as
    // the resource and its issuer, publicly cacheable (outside audit, 2026-11-27).
    const documents = ["/.well-known/jwks.json", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"];
    for (const path of documents) {
      const res = await fetch(`${server.url}${path}`, { headers: { origin: "https://chatgpt.com" } });
      expect(res.status, path).toBe(503);
      expect(res.headers.get("cache-control"), path).toBe("no-store");
      expect(res.headers.get("access-control-allow-origin"), path).toBe("https://chatgpt.com");
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, path).toBe("temporarily_unavailable");
      for (const name of MISSING) expect(body.error_description, path).toContain(name);
    }
  });

  it("says on the home page what to set", async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-testid="auth-problems"');
    for (const name of MISSING) expect(html).toContain(name);
  });
});
