import { generateKeyPair, SignJWT, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow, REDIRECT } from "../support/oauth-flow";
import { ACCESS_TOKEN_TTL_SECONDS, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: revocation (RFC 7009 §2.2) and introspection (RFC 7662 §2.2) answer an
 * access token JWT that is not active — expired, signed by no key of this server, with this
 * server's kid and a bad signature, alg none — as they answer any token they do not hold: 200,
 * and {"active":false}. @better-auth/oauth-provider 1.7.5 tells jose's errors apart by their
 * `name`, which is the class name jose gives them; the production build's minification renames
 * the classes, so an expired token was an empty 500 (and a bad signature was one even unminified).
 * ChatGPT and Claude revoke the access token they hold when a person disconnects, and it has often
 * expired by then. Client authentication still comes first (RFC 7009 §2.1, RFC 7662 §2.1).
 */

let as: AuthServerUnderTest;
let flow: ReturnType<typeof oauthFlow>;
/** A public client with an access token that has expired, and one that has not yet. */
let publicClientId: string;
let expired: string;
let fresh: string;
/** The public client's latest refresh token (liveToken). */
let publicRefresh: string;
/** A confidential client: introspection takes client authentication. */
let basic: string;

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

async function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(flow.api(path), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers }, body: new URLSearchParams(fields) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const revoke = (token: string, clientId = publicClientId) => post("/oauth2/revoke", { token, client_id: clientId });
const introspect = (token: string, authorization = basic) => post("/oauth2/introspect", { token }, { authorization });

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** `token` with its signature changed: this server's kid, a signature no key of it made. */
function badSignature(token: string): string {
  const [header, payload, signature] = token.split(".");
  const bytes = Buffer.from(signature!, "base64url");
  bytes[0] = bytes[0]! ^ 0xff;
  return `${header}.${payload}.${bytes.toString("base64url")}`;
}

/** `token`'s claims signed by a key this server never had, under a kid it does not know. */
async function unknownKid(token: string): Promise<string> {
  const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  const { privateKey } = await generateKeyPair("ES256");
  return new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "no-such-key" }).sign(privateKey);
}

/** `token`'s claims unsigned (RFC 7519 §6), under this server's kid. */
function algNone(token: string): string {
  const [, payload] = token.split(".");
  return `${encode({ alg: "none", typ: "at+jwt", kid: decodeProtectedHeader(token).kid })}.${payload}.`;
}

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
  flow = oauthFlow(as);
  const grant = await flow.grantCode();
  publicClientId = grant.clientId;
  const first = await flow.exchange(grant);
  expect(first.status).toBe(200);
  expired = first.body.access_token as string;
  const confidential = await flow.register({ client_name: "introspecting client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" });
  expect(confidential.status).toBe(201);
  basic = `Basic ${Buffer.from(`${String(confidential.body.client_id)}:${String(confidential.body.client_secret)}`).toString("base64")}`;
  // The access token lives ACCESS_TOKEN_TTL_SECONDS; a refresh then gives an unexpired one.
  await new Promise((resolve) => setTimeout(resolve, (ACCESS_TOKEN_TTL_SECONDS + 1) * 1000));
  const refreshed = await flow.refresh(grant.clientId, first.body.refresh_token as string);
  expect(refreshed.status).toBe(200);
  fresh = refreshed.body.access_token as string;
  publicRefresh = refreshed.body.refresh_token as string;
}, 120_000);

/**
 * An unexpired access token of the public client, minted now: `fresh` lives ACCESS_TOKEN_TTL_SECONDS,
 * which a loaded machine spent before the last test read it (seen in CI).
 */
async function liveToken(): Promise<string> {
  const refreshed = await flow.refresh(publicClientId, publicRefresh);
  expect(refreshed.status).toBe(200);
  publicRefresh = (refreshed.body.refresh_token as string | undefined) ?? publicRefresh;
  return refreshed.body.access_token as string;
}

afterAll(async () => {
  await as?.stop();
});

const inactive: [string, () => string | Promise<string>][] = [
  ["expired", () => expired],
  ["this server's kid, a bad signature", () => badSignature(fresh)],
  ["an unknown kid", () => unknownKid(fresh)],
  ["alg none", () => algNone(fresh)],
];

describe("revocation of an access token JWT that is not active (RFC 7009 §2.2)", () => {
  it.each(inactive)("%s: 200, as for a token the server does not hold", async (_what, token) => {
    const unknown = await revoke("no-such-token");
    const answer = await revoke(await token());
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: unknown.text });
    expect(answer.headers.get("cache-control")).toBe(unknown.headers.get("cache-control"));
    expect(answer.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
  });

  it("the client is authenticated first: an unknown client_id is still 400 invalid_client (RFC 6749 §5.2)", async () => {
    const answer = await revoke(expired, "no-such-client");
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: "invalid_client" });
  });
});

describe("introspection of an access token JWT that is not active (RFC 7662 §2.2)", () => {
  it.each(inactive)("%s: 200 {active: false}", async (_what, token) => {
    const unknown = await introspect("no-such-token");
    const answer = await introspect(await token());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ active: false });
    expect(answer.headers.get("cache-control")).toBe(unknown.headers.get("cache-control"));
  });

  it("the client is authenticated first: a wrong secret is still 401 invalid_client", async () => {
    const wrong = `Basic ${Buffer.from(`${Buffer.from(basic.slice(6), "base64").toString().split(":")[0]}:wrong-secret`).toString("base64")}`;
    const answer = await introspect(expired, wrong);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text)).toMatchObject({ error: "invalid_client" });
  });
});

// docs/authorization.md: introspection is for confidential clients, about their own tokens.
describe("introspection as documented", () => {
  it("a confidential client may register (it gets a secret); a public client may not introspect", async () => {
    const confidential = await flow.register({ client_name: "secret holder", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" });
    expect(confidential.status).toBe(201);
    expect(confidential.body.client_secret).toEqual(expect.any(String));
    const anonymous = await post("/oauth2/introspect", { token: fresh, client_id: publicClientId });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toMatchObject({ error: "invalid_client" });
  });

  // RFC 7662 §2.3: bad client credentials are 401 as in RFC 6749 §5.2; better-auth answered 400
  // unless the client used Basic (outside review, 2026-11-28). A 401 carries a challenge (RFC 9110 §11.6.1).
  it("bad client credentials are 401 invalid_client with a Basic challenge, however they were sent", async () => {
    const posting = await flow.register({ client_name: "posting client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" });
    expect(posting.status).toBe(201);
    const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
    const basicId = Buffer.from(basic.slice(6), "base64").toString().split(":")[0]!;
    const attempts: [string, Promise<Answer>][] = [
      ["body, unknown client_id", post("/oauth2/introspect", { token: fresh, client_id: "no-such-client", client_secret: "some-secret" })],
      ["body, wrong secret", post("/oauth2/introspect", { token: fresh, client_id: String(posting.body.client_id), client_secret: "wrong-secret" })],
      ["body, a public client's id alone", post("/oauth2/introspect", { token: fresh, client_id: publicClientId })],
      ["Basic, unknown client_id", introspect(fresh, basicOf("no-such-client", "some-secret"))],
      ["Basic, wrong secret", introspect(fresh, basicOf(basicId, "wrong-secret"))],
    ];
    for (const [what, pending] of attempts) {
      const answer = await pending;
      expect(answer.status, what).toBe(401);
      expect(JSON.parse(answer.text), what).toMatchObject({ error: "invalid_client" });
      expect(answer.headers.get("www-authenticate"), what).toMatch(/^Basic realm="/);
    }
    // The right secret in the body still introspects.
    const right = await post("/oauth2/introspect", { token: fresh, client_id: String(posting.body.client_id), client_secret: String(posting.body.client_secret) });
    expect(right.status).toBe(200);
  });

  it("another client's live access token is described by no more than its own payload says", async () => {
    const live = await liveToken();
    const answer = JSON.parse((await introspect(live)).text) as Record<string, unknown>;
    const payload = JSON.parse(Buffer.from(live.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    expect(answer.active).toBe(true);
    const { active: _active, token_type: _type, ...claims } = answer;
    expect(claims).toEqual(payload);
  });
});

// Last in this file: it takes the server's database away.
describe("a server failure is not an inactive token", () => {
  it("with the database gone, revoking an expired token is a 5xx, not a 200", async () => {
    await as.database.drop();
    expect((await revoke(expired)).status).toBeGreaterThanOrEqual(500);
    expect((await introspect(expired)).status).toBeGreaterThanOrEqual(500);
  });
});
