import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow } from "../support/oauth-flow";
import { postForm, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: a NUL (or any C0 control character, or a lone surrogate) in a parameter
 * of the built-in authorization server's routes is refused up front in the error shape of the
 * endpoint — 400 invalid_request (RFC 6749 §5.2), invalid_client_metadata (RFC 7591 §3.2.2), our
 * error page for /authorize, a normal page for /auth/* — and never reaches PostgreSQL, which
 * refuses a NUL in text (22021) and made each of these an empty 500.
 */

let as: AuthServerUnderTest;
let flow: ReturnType<typeof oauthFlow>;

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
  flow = oauthFlow(as);
}, 120_000);

afterAll(async () => {
  await as?.stop();
});

async function postJson(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${as.origin}${path}`, { method: "POST", headers: { "content-type": "application/json", origin: as.origin, ...headers }, body, redirect: "manual" });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : { raw: text }) as Record<string, unknown> };
}

describe("control characters and lone surrogates in authorization server input", () => {
  it("the token, revocation and introspection endpoints answer 400 invalid_request", async () => {
    for (const [path, fields] of [
      ["/oauth2/token", { grant_type: "client_credentials", client_id: "a\u0000", client_secret: "x" }],
      ["/oauth2/token", { grant_type: "refresh_token", client_id: "a", refresh_token: "r\u0001" }],
      ["/oauth2/revoke", { token: "abc", client_id: "a\u0000" }],
      ["/oauth2/introspect", { token: "abc", client_id: "a\u0000", client_secret: "x" }],
    ] as const) {
      const res = await postForm(flow.api(path), fields);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error, path).toBe("invalid_request");
    }
  });

  it("registration answers 400 invalid_client_metadata, or invalid_redirect_uri for a redirect URI, refused before the endpoint runs", async () => {
    const name = await postJson("/api/auth/oauth2/register", JSON.stringify({ client_name: "a\u0000b", redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none" }));
    expect(name.status).toBe(400);
    expect(name.body.error).toBe("invalid_client_metadata");
    const surrogate = await postJson("/api/auth/oauth2/register", '{"client_name":"a\\ud800b","redirect_uris":["https://client.example/cb"],"token_endpoint_auth_method":"none"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error).toBe("invalid_client_metadata");
    // DEL and C1 too (the name is shown on the consent page; U+009B is a terminal escape).
    for (const odd of ["a\u007fb", "a\u0085b", "a\u009b2Jb"]) {
      const c1 = await postJson("/api/auth/oauth2/register", JSON.stringify({ client_name: odd, redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none" }));
      expect(c1.status, JSON.stringify(odd)).toBe(400);
      expect(c1.body.error).toBe("invalid_client_metadata");
    }
    const uri = await postJson("/api/auth/oauth2/register", JSON.stringify({ client_name: "ok", redirect_uris: ["https://client.example/c\u0000b"], token_endpoint_auth_method: "none" }));
    expect(uri.status).toBe(400);
    expect(uri.body.error).toBe("invalid_redirect_uri");
  });

  it("sign-in and sign-up answer 400 in better-auth's shape", async () => {
    const signIn = await postJson("/api/auth/sign-in/email", JSON.stringify({ email: "a\u0000@example.com", password: "xxxxxxxxxx" }));
    expect(signIn.status).toBe(400);
    expect(signIn.body.code).toBe("INVALID_REQUEST");
    const signUp = await postJson("/api/auth/sign-up/email", JSON.stringify({ email: "new@example.com", password: "xxxxxxxxxx", name: "a\u001bb" }));
    expect(signUp.status).toBe(400);
  });

  it("/authorize with a NUL in client_id sends the browser to our error page", async () => {
    const next = await flow.authorize({ client_id: "a\u0000b", response_type: "code" });
    expect(next.pathname).toBe("/auth/error");
    expect(next.searchParams.get("error")).toBe("invalid_request");
  });

  it("the pages treat a client_id with a NUL as an unknown application, not a 500", async () => {
    for (const page of ["/auth/consent", "/auth/sign-in", "/auth/sign-up"]) {
      const res = await fetch(`${as.origin}${page}?client_id=a%00b&email=x%00y`);
      expect(res.status, page).toBe(200);
      await res.text();
    }
    const consent = await (await fetch(`${as.origin}/auth/consent?client_id=a%00b`)).text();
    expect(consent).toContain("Unknown application");
  });

  it("a form posted with a NUL goes back to its page, not to a 500", async () => {
    const res = await fetch(`${as.origin}/auth/submit/sign-in`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: as.origin }, body: new URLSearchParams({ email: "a\u0000@example.com", password: "xxxxxxxxxx" }), redirect: "manual" });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).pathname).toBe("/auth/sign-in");
  });

  it("no route under /api/auth or /auth answers 500 to a NUL in its query or body", async () => {
    const apiPaths = [
      "/oauth2/authorize", "/oauth2/token", "/oauth2/register", "/oauth2/revoke", "/oauth2/introspect", "/oauth2/consent", "/oauth2/continue",
      "/oauth2/userinfo", "/oauth2/end-session", "/oauth2/public-client", "/oauth2/public-client-prelogin", "/oauth2/get-client", "/oauth2/get-clients",
      "/oauth2/delete-client", "/oauth2/client/rotate-secret", "/oauth2/get-consent", "/oauth2/get-consents", "/oauth2/update-consent", "/oauth2/delete-consent",
      "/sign-in/email", "/sign-up/email", "/sign-in/social", "/sign-out", "/get-session", "/callback/github", "/oauth2/callback/oidc", "/jwks", "/token",
      "/request-password-reset", "/reset-password", "/verify-email", "/send-verification-email", "/change-email", "/change-password", "/update-user",
      "/delete-user", "/list-sessions", "/revoke-session", "/revoke-sessions", "/list-accounts", "/unlink-account", "/link-social", "/account-info", "/ok", "/error",
    ].map((p) => `/api/auth${p}`);
    const pages = ["/auth/sign-in", "/auth/sign-up", "/auth/consent", "/auth/error", "/auth/signed-out"];
    const forms = ["sign-in", "sign-up", "social", "consent", "sign-out"].map((a) => `/auth/submit/${a}`);
    const failures: string[] = [];
    const nul = { client_id: "a\u0000b", id: "a\u0000", token: "t\u0000", email: "e\u0000@example.com", provider: "g\u0000", state: "s\u0000", code: "c\u0000", oauth_query: "client_id=a%00" };
    for (const path of [...apiPaths, ...pages, ...forms]) {
      const headers = { origin: as.origin };
      const get = await fetch(`${as.origin}${path}?${new URLSearchParams(nul)}`, { redirect: "manual", headers });
      if (get.status >= 500) failures.push(`GET ${path} ${get.status}`);
      await get.arrayBuffer();
      for (const [type, body] of [["application/json", JSON.stringify(nul)], ["application/x-www-form-urlencoded", new URLSearchParams(nul).toString()]] as const) {
        const post = await fetch(`${as.origin}${path}`, { method: "POST", redirect: "manual", headers: { ...headers, "content-type": type }, body });
        if (post.status >= 500) failures.push(`POST ${type} ${path} ${post.status}`);
        await post.arrayBuffer();
      }
    }
    expect(failures).toEqual([]);
  });
});
