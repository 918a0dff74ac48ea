import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow, pkce, REDIRECT } from "../support/oauth-flow";
import { postForm, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: where better-auth's answers differed from the RFCs, the built-in server
 * now answers as they say — revoking an unknown token is 200 (RFC 7009 §2.2); a malformed
 * code_challenge is invalid_request sent back to the client with its state (RFC 7636 §4.2,
 * §4.4.1; RFC 6749 §4.1.2.1); 429 and 415 are OAuth error bodies in JSON with a standard
 * Retry-After; the metadata lists "none" for revocation (RFC 8414 §2); an unknown client_id at
 * /authorize is called unknown, not missing.
 */

let as: AuthServerUnderTest;
let limited: AuthServerUnderTest;
let flow: ReturnType<typeof oauthFlow>;

beforeAll(async () => {
  // Small limits on purpose (the defaults, 600 and 60 a minute, are per host, not per person).
  [as, limited] = await Promise.all([
    startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" }),
    startAuthServer({ MCP_AUTH_RATE_LIMITS: "1", MCP_AUTH_REGISTRATIONS_PER_MINUTE: "5", MCP_AUTH_TOKEN_REQUESTS_PER_MINUTE: "20" }),
  ]);
  flow = oauthFlow(as);
}, 120_000);

afterAll(async () => {
  await Promise.all([as?.stop(), limited?.stop()]);
});

describe("revocation (RFC 7009)", () => {
  it("an unknown token with a valid public client_id is 200, like a revoked one", async () => {
    const clientId = await flow.publicClient();
    const unknown = await postForm(flow.api("/oauth2/revoke"), { token: "no-such-token", client_id: clientId });
    expect(unknown.status).toBe(200);
    const hinted = await postForm(flow.api("/oauth2/revoke"), { token: "no-such-token", token_type_hint: "refresh_token", client_id: clientId });
    expect(hinted.status).toBe(200);
  });

  it("a real refresh token is revoked, and revoking it again is still 200", async () => {
    const grant = await flow.grantCode();
    const tokens = await flow.exchange(grant);
    const token = tokens.body.refresh_token as string;
    expect((await postForm(flow.api("/oauth2/revoke"), { token, client_id: grant.clientId })).status).toBe(200);
    expect((await postForm(flow.api("/oauth2/revoke"), { token, client_id: grant.clientId })).status).toBe(200);
    expect((await flow.refresh(grant.clientId, token)).body.error).toBe("invalid_grant");
  });

  // RFC 7009 §2.1: a token the hint does not find MUST be searched for as the other types. It was
  // answered 200 and left working (outside audit, 2026-11-27).
  it("a refresh token sent with the access_token hint is revoked all the same", async () => {
    const grant = await flow.grantCode();
    const tokens = await flow.exchange(grant);
    const token = tokens.body.refresh_token as string;
    expect((await postForm(flow.api("/oauth2/revoke"), { token, token_type_hint: "access_token", client_id: grant.clientId })).status).toBe(200);
    expect((await flow.refresh(grant.clientId, token)).body.error).toBe("invalid_grant");
  });

  // Outside probe, 2026-11-29: another client's live refresh token was answered `null` as JSON, an
  // unknown one with no body, so any client could tell whose tokens existed.
  it("every accepted revocation reads alike: no body, no content type, whether the token was ours, another client's or none", async () => {
    const grant = await flow.grantCode();
    const token = (await flow.exchange(grant)).body.refresh_token as string;
    const stranger = await flow.publicClient();
    const raw = (form: Record<string, string>) => fetch(flow.api("/oauth2/revoke"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });
    for (const [what, form] of [
      ["another client's live token", { token, client_id: stranger }],
      ["an unknown token", { token: "no-such-token", client_id: stranger }],
      ["its own token", { token, client_id: grant.clientId }],
      ["its own token, revoked already", { token, client_id: grant.clientId }],
    ] as const) {
      const answer = await raw(form);
      expect(answer.status, what).toBe(200);
      expect(answer.headers.get("content-type"), what).toBeNull();
      expect(await answer.text(), what).toBe("");
    }
  });

  it("a missing token is still 400 invalid_request", async () => {
    const clientId = await flow.publicClient();
    const missing = await postForm(flow.api("/oauth2/revoke"), { client_id: clientId });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("invalid_request");
  });

  it("the metadata lists none among the revocation endpoint's auth methods", async () => {
    const metadata = (await (await fetch(`${as.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.revocation_endpoint_auth_methods_supported).toContain("none");
  });

  // RFC 8414 §2: what the server supports. No client is ever given client_credentials, and
  // back-channel logout is OpenID Connect's, for ID tokens this server does not issue.
  it("the metadata offers only what the server does: no client_credentials grant, no back-channel logout", async () => {
    const metadata = (await (await fetch(`${as.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(metadata.grant_types_supported).not.toContain("client_credentials");
    expect(Object.keys(metadata).filter((key) => key.startsWith("backchannel_logout"))).toEqual([]);
  });

  it("no OpenID configuration: the built-in server is no OpenID provider, so 404 rather than a document OIDC Discovery §3 would refuse", async () => {
    const res = await fetch(`${as.origin}/.well-known/openid-configuration`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error_description: string }).error_description).toContain("/.well-known/oauth-authorization-server");
  });
});

// Outside audit (2026-11-28): a registration naming OpenID Connect's scopes was refused with
// invalid_scope (no RFC 7591 code), so such a client could not sign in at all.
describe("scopes at registration (RFC 7591 §3.2.1: the server may replace them)", () => {
  it("scopes this server does not offer are dropped, the client registered, and the answer says what it got", async () => {
    const base = { client_name: "oidc-minded", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" };
    const mixed = await flow.register({ ...base, scope: "openid profile email worlds:read" });
    expect(mixed.status).toBeLessThan(300);
    const mixedScopes = String(mixed.body.scope).split(" ");
    expect(mixedScopes).toContain("worlds:read");
    expect(mixedScopes).not.toContain("openid");

    const foreign = await flow.register({ ...base, scope: "openid profile email" });
    expect(foreign.status).toBeLessThan(300);
    expect(String(foreign.body.scope).split(" ")).toEqual(expect.arrayContaining(["worlds:read", "worlds:write"]));
    expect(foreign.body.scope).not.toMatch(/openid|profile|email/);

    // Both clients then sign in for a scope they were given (authorize adds offline_access).
    const { cookie } = await flow.signedInPerson();
    for (const client of [mixed, foreign]) {
      const next = await flow.authorize({ response_type: "code", client_id: String(client.body.client_id), redirect_uri: REDIRECT, scope: "worlds:read", state: "s", code_challenge: pkce().challenge, code_challenge_method: "S256" }, cookie);
      expect(next.pathname, JSON.stringify(client.body.scope)).toBe("/auth/consent");
    }
  });
});

// Outside audit (2026-11-28): a repeated grant_type or refresh_token was served with one of its
// values, where RFC 6749 §3.1 says parameters "MUST NOT be included more than once".
describe("repeated parameters (RFC 6749 §3.1)", () => {
  it("at the token and revocation endpoints: 400 invalid_request naming the parameter", async () => {
    const grant = await flow.grantCode();
    const tokens = await flow.exchange(grant);
    const refreshToken = tokens.body.refresh_token as string;
    const twice = new URLSearchParams([["grant_type", "refresh_token"], ["refresh_token", refreshToken], ["refresh_token", "other"], ["client_id", grant.clientId]]);
    const res = await fetch(flow.api("/oauth2/token"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: twice });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("refresh_token") });
    const revoke = new URLSearchParams([["token", refreshToken], ["token", "other"], ["client_id", grant.clientId]]);
    const revoked = await fetch(flow.api("/oauth2/revoke"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: revoke });
    expect(revoked.status).toBe(400);
    // Nothing was done with either value: the refresh token still works.
    expect((await flow.refresh(grant.clientId, refreshToken)).status).toBe(200);
  });

  it("at authorize: the error page, never a redirect to either redirect_uri; a repeated resource (RFC 8707) is not refused for it", async () => {
    const clientId = await flow.publicClient();
    const { cookie } = await flow.signedInPerson();
    const base = { response_type: "code", client_id: clientId, scope: "worlds:read", state: "s", code_challenge: pkce().challenge, code_challenge_method: "S256" };
    const url = new URL(flow.api("/oauth2/authorize"));
    url.search = new URLSearchParams([...Object.entries(base), ["redirect_uri", REDIRECT], ["redirect_uri", "https://attacker.example/cb"]]).toString();
    const res = await fetch(url, { redirect: "manual", headers: { cookie } });
    expect(res.status).toBe(302);
    const next = new URL(res.headers.get("location") ?? "", url);
    expect(next.pathname).toBe("/auth/error");
    expect(next.searchParams.get("error")).toBe("invalid_request");

    const resources = new URL(flow.api("/oauth2/authorize"));
    resources.search = new URLSearchParams([...Object.entries(base), ["redirect_uri", REDIRECT], ["resource", as.mcpUrl], ["resource", as.mcpUrl]]).toString();
    const answer = await fetch(resources, { redirect: "manual", headers: { cookie } });
    expect(new URL(answer.headers.get("location") ?? "", resources).searchParams.get("error")).not.toBe("invalid_request");
  });
});

describe("code_challenge at /authorize (RFC 7636 §4.2)", () => {
  it("a challenge that is too short or has other characters is invalid_request, back to the client with its state, and no code", async () => {
    const clientId = await flow.publicClient();
    const { cookie } = await flow.signedInPerson();
    for (const challenge of ["abc", "!".repeat(43), "a".repeat(129), `${"a".repeat(42)}=`]) {
      const next = await flow.authorize({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "worlds:read", state: "st-1", code_challenge: challenge, code_challenge_method: "S256" }, cookie);
      expect(`${next.origin}${next.pathname}`, challenge).toBe(REDIRECT);
      expect(next.searchParams.get("error"), challenge).toBe("invalid_request");
      expect(next.searchParams.get("error_description"), challenge).toMatch(/code_challenge/);
      expect(next.searchParams.get("state")).toBe("st-1");
      expect(next.searchParams.get("code")).toBeNull();
    }
  });

  it("a well-formed challenge still goes on to consent", async () => {
    const clientId = await flow.publicClient();
    const { cookie } = await flow.signedInPerson();
    const next = await flow.authorize({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "worlds:read", state: "s", code_challenge: pkce().challenge, code_challenge_method: "S256" }, cookie);
    expect(next.pathname).toBe("/auth/consent");
  });

  it("an unknown client_id leads to the error page saying it is unknown, not missing", async () => {
    const next = await flow.authorize({ response_type: "code", client_id: "no-such-client", redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256" });
    expect(next.pathname).toBe("/auth/error");
    expect(next.searchParams.get("error")).toBe("invalid_client");
    expect(next.searchParams.get("error_description")).not.toMatch(/required/);
    const page = await (await fetch(next)).text();
    expect(page).toMatch(/not registered/);
  });
});

describe("429 and 415 are OAuth errors", () => {
  it("over the registration limit (MCP_AUTH_REGISTRATIONS_PER_MINUTE): 429, JSON error and a standard Retry-After", async () => {
    let res: Response | undefined;
    let sent = 0;
    for (let i = 0; i < 20; i++) {
      res = await fetch(`${limited.origin}/api/auth/oauth2/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "rl", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }) });
      sent += 1;
      if (res.status === 429) break;
      await res.arrayBuffer();
    }
    expect(res?.status).toBe(429);
    expect(sent).toBe(6);
    expect(res!.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(res!.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await res!.json()) as Record<string, unknown>;
    expect(body.error).toBe("invalid_request");
    expect(body.error_description).toEqual(expect.any(String));
  });

  it("over the token limit (MCP_AUTH_TOKEN_REQUESTS_PER_MINUTE): the same", async () => {
    let res: Response | undefined;
    let sent = 0;
    for (let i = 0; i < 40; i++) {
      res = await fetch(`${limited.origin}/api/auth/oauth2/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: "y" }) });
      sent += 1;
      if (res.status === 429) break;
      await res.arrayBuffer();
    }
    expect(res?.status).toBe(429);
    expect(sent).toBe(21);
    expect(res!.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(res!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await res!.json()) as Record<string, unknown>).error).toBe("invalid_request");
  });

  // Outside audit (2026-11-28): a person's browser over the authorize limit got a bare text/plain
  // JSON line and a non-standard X-Retry-After.
  it("over the authorize limit: the error page saying the server is busy, with a standard Retry-After", async () => {
    const url = new URL(`${limited.origin}/api/auth/oauth2/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: "no-such-client", redirect_uri: REDIRECT, state: "s", code_challenge: pkce().challenge, code_challenge_method: "S256" }).toString();
    let res: Response | undefined;
    for (let i = 0; i < 60; i++) {
      res = await fetch(url, { redirect: "manual" });
      await res.arrayBuffer();
      if (res.status !== 302 || new URL(res.headers.get("location") ?? "", limited.origin).searchParams.get("error") !== "invalid_client") break;
    }
    expect(res?.status).toBe(302);
    const next = new URL(res!.headers.get("location") ?? "", limited.origin);
    expect(next.pathname).toBe("/auth/error");
    expect(next.searchParams.get("error")).toBe("temporarily_unavailable");
    expect(Number(res!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await (await fetch(next)).text()).toMatch(/busy/);
  });

  // Outside audit (2026-11-27): these answers lacked the `error` member, named the wrong media type,
  // or were a bodiless 404.
  it("every error of the registration, token and revocation endpoints has the OAuth shape", async () => {
    const notJson = await fetch(flow.api("/oauth2/register"), { method: "POST", headers: { "content-type": "application/json" }, body: "not json" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.any(String) });
    const form = await fetch(flow.api("/oauth2/register"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "redirect_uris=x" });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ error: "invalid_client_metadata", error_description: "the body must be application/json" });
    for (const path of ["/oauth2/token", "/oauth2/register", "/oauth2/revoke"]) {
      const get = await fetch(flow.api(path));
      expect(get.status, path).toBe(405);
      expect(get.headers.get("allow"), path).toBe("OPTIONS, POST");
      expect(await get.json(), path).toMatchObject({ error: "invalid_request" });
    }
  });

  // Outside review (2026-11-28): a form sent to consent, which reads JSON, was told to send a form.
  it("a 415 names the media types the endpoint reads", async () => {
    const cases: [string, string, string][] = [
      ["/oauth2/consent", "application/x-www-form-urlencoded", "the body must be application/json"],
      ["/oauth2/token", "application/json", "the body must be application/x-www-form-urlencoded"],
      ["/oauth2/introspect", "application/json", "the body must be application/x-www-form-urlencoded"],
      ["/oauth2/end-session", "text/plain", "the body must be application/x-www-form-urlencoded or application/json"],
    ];
    for (const [path, type, description] of cases) {
      const res = await fetch(flow.api(path), { method: "POST", headers: { "content-type": type }, body: type === "application/json" ? "{}" : "accept=true" });
      expect(res.status, path).toBe(415);
      expect(await res.json(), path).toEqual({ error: "invalid_request", error_description: description });
    }
  });

  it("JSON sent to the token or revocation endpoint: 415 with an OAuth error body", async () => {
    for (const path of ["/oauth2/token", "/oauth2/revoke"]) {
      const res = await fetch(flow.api(path), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(res.status, path).toBe(415);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.error, path).toBe("invalid_request");
      expect(body.code).toBeUndefined();
    }
  });
});

// Outside review (2026-11-28): PUT /api/auth/oauth2/token said Allow: GET, HEAD, OPTIONS, POST (the
// catch-all route's methods) and GET said Allow: POST. RFC 9110 §15.5.6: Allow lists the methods
// the target resource supports, the same whatever method was sent.
describe("405 and Allow on /api/auth: the endpoint's own methods", () => {
  const cases: [string, string, readonly string[]][] = [
    ["/oauth2/token", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/oauth2/register", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/oauth2/revoke", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/oauth2/introspect", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/oauth2/consent", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/oauth2/authorize", "GET, HEAD, OPTIONS, POST", ["PUT", "DELETE", "PATCH"]],
    ["/jwks", "GET, HEAD, OPTIONS", ["POST", "PUT", "DELETE", "PATCH"]],
    ["/sign-in/email", "OPTIONS, POST", ["GET", "PUT", "DELETE", "PATCH"]],
    ["/get-session", "GET, HEAD, OPTIONS, POST", ["PUT", "DELETE", "PATCH"]],
  ];

  it.each(cases)("%s: every other method is 405 with Allow: %s, and so is OPTIONS's Allow", async (path, allow, others) => {
    for (const method of others) {
      const res = await fetch(flow.api(path), { method, redirect: "manual" });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe(allow);
      const body = (await res.json()) as Record<string, unknown>;
      if (path.startsWith("/oauth2/")) expect(body, method).toMatchObject({ error: "invalid_request", error_description: expect.any(String) });
      else expect(body, method).toMatchObject({ code: "METHOD_NOT_ALLOWED", message: expect.any(String) });
    }
    if (!allow.includes("GET")) {
      const head = await fetch(flow.api(path), { method: "HEAD" });
      expect(head.status).toBe(405);
      expect(head.headers.get("allow")).toBe(allow);
    }
    const options = await fetch(flow.api(path), { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe(allow);
  });

  it("a path that is not there, or is turned off, is 404 whatever the method", async () => {
    for (const path of ["/no-such-endpoint", "/oauth2/create-client"]) {
      for (const method of ["GET", "POST", "PUT", "DELETE", "OPTIONS"]) {
        const res = await fetch(flow.api(path), { method, headers: { "content-type": "application/json", origin: as.origin }, ...(method === "POST" || method === "PUT" ? { body: "{}" } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get("allow"), `${method} ${path}`).toBeNull();
      }
    }
  });
});
