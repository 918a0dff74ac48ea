import { createHash, randomBytes, randomUUID } from "node:crypto";
import { expect } from "vitest";
import { postForm, type AuthServerUnderTest } from "./oauth-server";

/**
 * The steps of a flow against the built-in authorization server, each a real HTTP request as a
 * client or a browser sends it: register a public client, sign a person up, authorize (and
 * consent), redeem the code, refresh.
 */

export const REDIRECT = "http://127.0.0.1:1/cb";

export interface Grant {
  clientId: string;
  verifier: string;
  code: string;
  cookie: string;
}

export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function oauthFlow(as: AuthServerUnderTest) {
  const api = (path: string) => `${as.origin}/api/auth${path}`;

  async function register(metadata: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await fetch(api("/oauth2/register"), { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(metadata) });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }

  async function publicClient(redirects: string[] = [REDIRECT]): Promise<string> {
    const { status, body } = await register({ client_name: "flow client", redirect_uris: redirects, token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    expect(status).toBe(201);
    return body.client_id as string;
  }

  /** A person with an account and a session cookie, made through the sign-up endpoint as the page's form does. */
  async function signedInPerson(): Promise<{ cookie: string; email: string; password: string }> {
    const email = `flow-${randomUUID().slice(0, 8)}@example.com`;
    const password = "correct horse battery";
    const res = await fetch(api("/sign-up/email"), { method: "POST", headers: { "content-type": "application/json", origin: as.origin }, body: JSON.stringify({ email, password, name: "Flow person" }) });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    return { cookie, email, password };
  }

  function authorizeUrl(params: Record<string, string | undefined>): string {
    const url = new URL(api("/oauth2/authorize"));
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  }

  /** GET authorize as a browser navigates to it, without following: where it sends the browser. */
  async function authorize(params: Record<string, string | undefined>, cookie?: string): Promise<URL> {
    const res = await fetch(authorizeUrl(params), { redirect: "manual", headers: { accept: "text/html", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document", ...(cookie ? { cookie } : {}) } });
    const location = res.headers.get("location");
    if (location) return new URL(location, as.origin);
    // better-auth answers `{ redirect: true, url }` where it decides the caller is a script.
    const text = await res.text();
    const url = (JSON.parse(text || "{}") as { url?: string }).url;
    return new URL(url ?? `/no-redirect?status=${res.status}&body=${encodeURIComponent(text.slice(0, 200))}`, as.origin);
  }

  /** Authorize → consent → code, for a fresh client and person unless given; `extra` adds authorization parameters (resource, dpop_jkt…). */
  async function grantCode(options: { clientId?: string; cookie?: string; scope?: string; extra?: Record<string, string> } = {}): Promise<Grant> {
    const clientId = options.clientId ?? (await publicClient());
    const cookie = options.cookie ?? (await signedInPerson()).cookie;
    const { verifier, challenge } = pkce();
    const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: options.scope ?? "worlds:read worlds:write", state: "s1", code_challenge: challenge, code_challenge_method: "S256", ...options.extra };
    let next = await authorize(params, cookie);
    if (next.pathname === "/auth/consent") {
      const res = await fetch(api("/oauth2/consent"), { method: "POST", headers: { "content-type": "application/json", origin: as.origin, cookie }, body: JSON.stringify({ accept: true, oauth_query: next.search.slice(1) }) });
      const body = (await res.json()) as { url?: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      next = new URL(body.url!);
    }
    const code = next.searchParams.get("code");
    expect(code, next.toString()).toBeTruthy();
    return { clientId, verifier, code: code!, cookie };
  }

  function exchange(grant: Grant, extra: Record<string, string> = {}): Promise<Reply> {
    return postForm(api("/oauth2/token"), { grant_type: "authorization_code", code: grant.code, redirect_uri: REDIRECT, client_id: grant.clientId, code_verifier: grant.verifier, resource: as.mcpUrl, ...extra });
  }

  function refresh(clientId: string, token: string, extra: Record<string, string> = {}): Promise<Reply> {
    return postForm(api("/oauth2/token"), { grant_type: "refresh_token", refresh_token: token, client_id: clientId, resource: as.mcpUrl, ...extra });
  }

  return { api, register, publicClient, signedInPerson, authorize, authorizeUrl, grantCode, exchange, refresh };
}
