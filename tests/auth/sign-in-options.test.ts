import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthorizationServer, type TestAuthorizationServer } from "../support/oidc-test-provider";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the ways to sign in follow the configuration. With GitHub's client id and
 * secret set, the sign-in page offers GitHub and its form goes to GitHub's authorization endpoint
 * with our callback; with an OpenID Connect issuer configured (a real oidc-provider here), the page
 * offers it and its form goes to that provider's authorization endpoint, found by discovery.
 * Sign-up follows MCP_AUTH_SIGNUP_DOMAINS on one server and MCP_AUTH_SIGNUP=closed on another.
 */

let oidc: TestAuthorizationServer;
let open: AuthServerUnderTest;
let closed: AuthServerUnderTest;
let oidcClientId = "";

async function registerAtProvider(issuer: string, redirect: string): Promise<{ client_id: string; client_secret: string }> {
  const res = await fetch(`${issuer}/reg`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code"], response_types: ["code"] }) });
  expect(res.status).toBe(201);
  return (await res.json()) as { client_id: string; client_secret: string };
}

beforeAll(async () => {
  oidc = await startAuthorizationServer({ resources: {}, scopes: [] });
  // The provider needs our callback URL before our server starts; a placeholder port is replaced below.
  const placeholder = await registerAtProvider(oidc.issuer, "http://127.0.0.1:1/api/auth/callback/oidc");
  oidcClientId = placeholder.client_id;
  [open, closed] = await Promise.all([
    startAuthServer({
      GITHUB_CLIENT_ID: "gh-test-client",
      GITHUB_CLIENT_SECRET: "gh-test-secret",
      MCP_AUTH_OIDC_ISSUER: oidc.issuer,
      MCP_AUTH_OIDC_CLIENT_ID: placeholder.client_id,
      MCP_AUTH_OIDC_CLIENT_SECRET: placeholder.client_secret,
      MCP_AUTH_OIDC_NAME: "Acme SSO",
      MCP_AUTH_SIGNUP_DOMAINS: "example.org",
    }),
    startAuthServer({ MCP_AUTH_SIGNUP: "closed" }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([open?.stop(), closed?.stop(), oidc?.stop()]);
});

function submit(server: AuthServerUnderTest, action: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${server.origin}/auth/submit/${action}`, { method: "POST", redirect: "manual", headers: { origin: server.origin, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
}

describe("ways to sign in", () => {
  it("the sign-in page offers the configured providers and only those", async () => {
    const html = await (await fetch(`${open.origin}/auth/sign-in`)).text();
    expect(html).toContain("Continue with <!-- -->GitHub");
    expect(html).toContain("Continue with <!-- -->Acme SSO");
    expect(html).not.toContain("Google");
    const plain = await (await fetch(`${closed.origin}/auth/sign-in`)).text();
    expect(plain).not.toContain("Continue with");
  });

  it("GitHub's form goes to GitHub with our callback", async () => {
    const res = await submit(open, "social", { provider: "github" });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("https://github.com/login/oauth/authorize");
    expect(location.searchParams.get("client_id")).toBe("gh-test-client");
    expect(location.searchParams.get("redirect_uri")).toBe(`${open.origin}/api/auth/callback/github`);
  });

  it("an OpenID Connect provider's form goes to its authorization endpoint, found by discovery", async () => {
    const res = await submit(open, "social", { provider: "oidc" });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe(oidc.issuer);
    expect(location.searchParams.get("client_id")).toBe(oidcClientId);
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    expect(location.searchParams.get("redirect_uri")).toBe(`${open.origin}/api/auth/callback/oidc`);
  });
});

describe("sign-up policy", () => {
  it("only the allowed domains may sign up", async () => {
    const refused = await submit(open, "sign-up", { email: `someone-${randomUUID().slice(0, 6)}@example.com`, password: "correct horse battery", name: "x" });
    expect(refused.status).toBe(303);
    const back = new URL(refused.headers.get("location")!);
    expect(back.pathname).toBe("/auth/sign-up");
    expect(back.searchParams.get("error")).toBe("SIGN_UP_DOMAIN");
    expect(await (await fetch(back)).text()).toContain("example.org");
    const allowed = await submit(open, "sign-up", { email: `someone-${randomUUID().slice(0, 6)}@example.org`, password: "correct horse battery", name: "x" });
    expect(allowed.status).toBe(303);
    expect(new URL(allowed.headers.get("location")!).pathname).toBe("/");
    expect(allowed.headers.getSetCookie().length).toBeGreaterThan(0);
  });

  it("closed sign-up takes no new account and says so", async () => {
    const page = await (await fetch(`${closed.origin}/auth/sign-up`)).text();
    expect(page).toContain("New accounts are closed");
    const res = await fetch(`${closed.origin}/api/auth/sign-up/email`, { method: "POST", headers: { origin: closed.origin, "content-type": "application/json" }, body: JSON.stringify({ email: `new-${randomUUID().slice(0, 6)}@example.com`, password: "correct horse battery", name: "x" }) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.getSetCookie()).toHaveLength(0);
  });
});
