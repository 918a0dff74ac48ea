import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, importJWK, type CryptoKey, type JWK, type JWTHeaderParameters, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJwksServer, type JwksServer } from "../support/jwks-server";
import { JSON_AND_SSE, sseMessages } from "../support/mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migrateDatabase, testSchema, type TestSchema } from "../support/test-database";

/**
 * What this file proves: the production server, configured as an OAuth 2.1 protected resource in
 * MCP_AUTH_MODE=required against an external authorization server (a JWKS endpoint this test
 * controls), refuses every forged, misdirected, stale or malformed credential in the matrix below
 * with the exact HTTP status, a `WWW-Authenticate: Bearer` challenge that names the protected
 * resource metadata (RFC 9728) and the right RFC 6750 error code, and a JSON-RPC -32001 body — while
 * well-formed tokens work. It also proves that key rotation works within the configured JWKS
 * cooldown and cache age, that a URL named in a token header is never fetched, and that no token
 * sent ever shows up in the server's logs.
 *
 * Every request is a real HTTP POST to /api/mcp in the 2026-07-28 stateless form (no handshake,
 * so each row is one request). The server is a `next start` of its own, not the shared test
 * servers: those trust the development issuer, and this file needs an issuer it can rotate.
 */

const V = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const ALL_SCOPES = "worlds:read worlds:write";

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ── The server under test and its authorization server ──────────────────────────────────────

let jwks: JwksServer;
let server: RunningNextServer;
let database: TestSchema;
/** Everything the server wrote (stdout is redirected into stderr, see beforeAll). */
let serverOutput = "";
let mcpUrl = "";
let issuer = "";
/** RFC 9728 §3.1: the well-known segment goes between the host and the resource's path. */
let metadataUrl = "";

interface TestKey {
  kid: string;
  alg: "RS256" | "ES256";
  privateKey: CryptoKey;
  privateJwk: JWK;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function makeKey(alg: "RS256" | "ES256", kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  // alg and use on the JWK, as real authorization servers publish them: it binds the key to one algorithm.
  return { kid, alg, privateKey, privateJwk: await exportJWK(privateKey), publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** rsaA and ecB are published from the start; rsaC is added by the rotation test; rogue never is. */
let rsaA: TestKey;
let ecB: TestKey;
let rsaC: TestKey;
let rogue: TestKey;

/** Every token any request carried, for the log check at the end. */
const sentTokens = new Set<string>();

/**
 * startNextServer ignores the child's stdout when quiet (and inherits it otherwise), and the request
 * log goes to stdout. Without editing that helper, the child is told to send its stdout writes to
 * stderr — which startNextServer pipes — by a one-line preload in NODE_OPTIONS.
 */
const STDOUT_TO_STDERR = `--import=data:text/javascript,${encodeURIComponent("process.stdout.write = process.stderr.write.bind(process.stderr);")}`;

beforeAll(async () => {
  [rsaA, ecB, rsaC, rogue] = await Promise.all([makeKey("RS256", "rsa-a"), makeKey("ES256", "ec-b"), makeKey("RS256", "rsa-c"), makeKey("RS256", "rsa-a")]);
  jwks = await startJwksServer();
  // One RSA key and one EC key: a kid-less RS256 token has exactly one candidate key in this set.
  jwks.setKeys([rsaA.publicJwk, ecB.publicJwk]);
  issuer = `${jwks.origin}/issuer`;

  database = testSchema("wc_attack");
  await migrateDatabase({ DATABASE_URL: database.url });

  const port = await freePort();
  mcpUrl = `http://127.0.0.1:${port}/api/mcp`;
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/api/mcp`;
  server = await startNextServer({
    port,
    env: {
      MCP_AUTH_MODE: "required",
      MCP_AUTH_ISSUER: issuer,
      MCP_AUTH_JWKS_URL: jwks.jwksUrl,
      MCP_RESOURCE_URL: mcpUrl,
      // Short enough that rotation is observable in seconds.
      MCP_AUTH_JWKS_COOLDOWN_MS: "1000",
      MCP_AUTH_JWKS_CACHE_MAX_AGE_MS: "2000",
      DATABASE_URL: database.url,
      MCP_LOG_REQUESTS: "1",
      MCP_REQUEST_STATE_SECRET: "attack-matrix-request-state-secret-0123456789",
      NODE_OPTIONS: STDOUT_TO_STDERR,
    },
  });
  // The type declaration leaves `child` out, but startNextServer returns it; startup output is in stderr().
  const child = (server as RunningNextServer & { child?: { stderr: Readable | null } }).child;
  child?.stderr?.on("data", (chunk: Buffer) => {
    serverOutput += chunk.toString("utf8");
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await jwks?.close();
  await database?.drop();
});

// ── Tokens ───────────────────────────────────────────────────────────────────────────────────

const now = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value), "utf8").toString("base64url");
const newSubject = () => `attack-${randomUUID().slice(0, 8)}`;

/** Claims a correct token for this resource carries; `set` overrides, `omit` removes. */
function claims(set: JWTPayload = {}, omit: readonly string[] = []): JWTPayload {
  const t = now();
  const payload: JWTPayload = { iss: issuer, aud: mcpUrl, sub: newSubject(), iat: t, exp: t + 300, jti: randomUUID(), scope: ALL_SCOPES, ...set };
  for (const claim of omit) delete payload[claim];
  return payload;
}

function remember(token: string): string {
  sentTokens.add(token);
  return token;
}

/** Signs `payload` with `key` (kid and alg from the key unless the header says otherwise). */
async function sign(key: TestKey, payload: JWTPayload = claims(), header: Partial<JWTHeaderParameters> = {}, omitKid = false): Promise<string> {
  const protectedHeader: JWTHeaderParameters = { alg: key.alg, typ: "at+jwt", ...(omitKid ? {} : { kid: key.kid }), ...header };
  return remember(await new SignJWT(payload).setProtectedHeader(protectedHeader).sign(key.privateKey));
}

// ── Requests ─────────────────────────────────────────────────────────────────────────────────

type Tool = "list_worlds" | "create_world";

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
}

/** One 2026-07-28 tools/call, with the credentials of the row. */
async function callTool(tool: Tool, args: Json, auth: { authorization?: string; query?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: JSON_AND_SSE,
    "mcp-protocol-version": V,
    "mcp-method": "tools/call",
    "mcp-name": tool,
  };
  if (auth.authorization !== undefined) headers.authorization = auth.authorization;
  const res = await fetch(`${mcpUrl}${auth.query ?? ""}`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: randomUUID(), method: "tools/call", params: { name: tool, arguments: args, _meta: META } }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: unknown;
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    json = sseMessages(text).find((m) => isRecord(m) && ("result" in m || "error" in m));
  } else {
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json: isRecord(json) ? json : undefined };
}

const listWorlds = (authorization: string) => callTool("list_worlds", {}, { authorization });

/** An RFC 7235 challenge: the scheme and its auth-params (quoted-strings unescaped). */
function parseChallenge(value: string): { scheme: string; params: Record<string, string> } {
  const head = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +|$)/.exec(value);
  if (!head) throw new Error(`not a challenge: ${value}`);
  const params: Record<string, string> = {};
  const param = /([A-Za-z_][A-Za-z0-9_-]*)=(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9!#$%&'*+.^_`|~-]+)) *(?:, *|$)/y;
  param.lastIndex = head[0].length;
  while (param.lastIndex < value.length) {
    const m = param.exec(value);
    if (!m) throw new Error(`unparsable auth-param at ${param.lastIndex} in: ${value}`);
    const name = (m[1] as string).toLowerCase();
    if (name in params) throw new Error(`repeated auth-param ${name} in: ${value}`);
    params[name] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] as string);
  }
  return { scheme: head[1] as string, params };
}

type Refusal = "invalid_request" | "invalid_token" | "insufficient_scope";

type Outcome = { status: 200 } | { status: 400 | 401 | 403; error: Refusal | undefined; scope: string };

function label(outcome: Outcome): string {
  return outcome.status === 200 ? "200, the call works" : `${outcome.status}${outcome.error ? ` ${outcome.error}` : ", no error code"} (scope "${outcome.scope}")`;
}

/** The whole answer the row must get: status, challenge and body — and never the token echoed back. */
function expectOutcome(reply: Reply, outcome: Outcome, tokens: readonly string[]): void {
  const context = `${reply.status} ${reply.headers.get("www-authenticate") ?? ""} ${reply.text.slice(0, 400)}`;
  for (const token of tokens) {
    expect(reply.text.includes(token), `the body echoes the token: ${context}`).toBe(false);
    expect((reply.headers.get("www-authenticate") ?? "").includes(token), `the challenge echoes the token: ${context}`).toBe(false);
  }
  expect(reply.status, context).toBe(outcome.status);
  if (outcome.status === 200) {
    expect(reply.json?.error, context).toBeUndefined();
    const result = reply.json?.result;
    expect(isRecord(result) && result.isError !== true, context).toBe(true);
    return;
  }
  expect(reply.headers.get("content-type"), context).toMatch(/^application\/json/);
  const error = reply.json?.error;
  expect(isRecord(error) && error.code, context).toBe(-32001);
  expect(isRecord(error) && typeof error.message === "string" && error.message.length > 0, context).toBe(true);

  const header = reply.headers.get("www-authenticate");
  expect(header, context).not.toBeNull();
  const { scheme, params } = parseChallenge(header as string);
  expect(scheme, context).toBe("Bearer");
  expect(params.resource_metadata, context).toBe(metadataUrl);
  expect(params.scope, context).toBe(outcome.scope);
  expect(params.error, context).toBe(outcome.error);
  // RFC 6750 §3.1: a request without credentials gets no error information at all.
  if (outcome.error === undefined) expect(params.error_description, context).toBeUndefined();
  if (outcome.error === "invalid_token" || outcome.error === "invalid_request") expect(params.error_description, context).toBeTruthy();
}

// ── The matrix ───────────────────────────────────────────────────────────────────────────────

interface Attempt {
  authorization?: string;
  query?: string;
  tool?: Tool;
  /** The tokens in this request, which nothing may echo or log. */
  tokens: string[];
}

interface AttackCase {
  title: string;
  build: () => Promise<Attempt>;
  outcome: Outcome;
}

const REFUSED: Outcome = { status: 401, error: "invalid_token", scope: ALL_SCOPES };
const MALFORMED: Outcome = { status: 400, error: "invalid_request", scope: ALL_SCOPES };
const OK: Outcome = { status: 200 };
/** RFC 6750 §3.1: a request without (Bearer) credentials learns how to authenticate, with no error code. */
const NO_CREDENTIALS: Outcome = { status: 401, error: undefined, scope: ALL_SCOPES };

const bearer = (token: string): Attempt => ({ authorization: `Bearer ${token}`, tokens: [token] });

const rows: { name: string; build: () => Promise<Attempt>; outcome: Outcome }[] = [
  // Positive controls: the same request succeeds with a correct token, so each refusal below is the attack's doing.
  { name: "a correct RS256 token (typ at+jwt)", build: async () => bearer(await sign(rsaA)), outcome: OK },
  { name: "a correct token with typ JWT", build: async () => bearer(await sign(rsaA, claims(), { typ: "JWT" })), outcome: OK },
  { name: "a correct token with typ application/at+jwt", build: async () => bearer(await sign(rsaA, claims(), { typ: "application/at+jwt" })), outcome: OK },
  { name: "a correct token with no typ", build: async () => bearer(await sign(rsaA, claims(), { typ: undefined })), outcome: OK },
  { name: "a correct ES256 token", build: async () => bearer(await sign(ecB)), outcome: OK },
  { name: "an audience array that includes this resource", build: async () => bearer(await sign(rsaA, claims({ aud: ["https://other.example/api", mcpUrl] }))), outcome: OK },
  { name: "a token expired 5 s ago (inside the 30 s clock tolerance)", build: async () => bearer(await sign(rsaA, claims({ iat: now() - 60, exp: now() - 5 }))), outcome: OK },
  {
    name: "the scheme in lower case with several spaces (RFC 7235: case-insensitive; RFC 6750: 1*SP)",
    build: async () => {
      const token = await sign(rsaA);
      return { authorization: `bearer   ${token}`, tokens: [token] };
    },
    outcome: OK,
  },
  { name: "worlds:write only, calling a read tool (write implies read)", build: async () => bearer(await sign(rsaA, claims({ scope: "worlds:write" }))), outcome: OK },

  // No credentials at all.
  { name: "no token", build: async () => ({ tokens: [] }), outcome: NO_CREDENTIALS },

  // Forged signatures and algorithm confusion.
  {
    name: "alg none (unsigned, empty signature)",
    build: async () => bearer(remember(`${b64url({ alg: "none", typ: "JWT", kid: rsaA.kid })}.${b64url(claims())}.`)),
    outcome: REFUSED,
  },
  {
    name: "HS256 with the RSA public key's PEM as the HMAC secret",
    build: async () => {
      const secret = new TextEncoder().encode(await exportSPKI(rsaA.publicKey));
      return bearer(remember(await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: rsaA.kid }).sign(secret)));
    },
    outcome: REFUSED,
  },
  {
    name: "HS256 with the published JWK's JSON as the HMAC secret",
    build: async () => {
      const secret = new TextEncoder().encode(JSON.stringify(rsaA.publicJwk));
      return bearer(remember(await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: rsaA.kid }).sign(secret)));
    },
    outcome: REFUSED,
  },
  {
    name: "PS256 by the key published for RS256 only",
    build: async () => {
      // The same RSA key material, used for RSA-PSS: a valid signature, but not with the algorithm the JWK names.
      const pss = await importJWK(rsaA.privateJwk, "PS256");
      return bearer(remember(await new SignJWT(claims()).setProtectedHeader({ alg: "PS256", typ: "at+jwt", kid: rsaA.kid }).sign(pss)));
    },
    outcome: REFUSED,
  },
  { name: "an RSA signature under the EC key's kid", build: async () => bearer(await sign(rsaA, claims(), { kid: ecB.kid })), outcome: REFUSED },
  {
    name: "a tampered payload (sub changed after signing)",
    build: async () => {
      const token = await sign(rsaA);
      const [header, payload, signature] = token.split(".") as [string, string, string];
      const forged = { ...(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as JWTPayload), sub: "someone-else" };
      return bearer(remember(`${header}.${b64url(forged)}.${signature}`));
    },
    outcome: REFUSED,
  },
  // Outside audit (2026-11-28): jose's base64url decoder skips padding, so a valid token with "="
  // after any part verified: one credential, many spellings. RFC 7515 §2: base64url is unpadded.
  ...(["==", "="] as const).flatMap((pad) => [
    { name: `a valid token with "${pad}" after its signature`, build: async () => bearer(remember(`${await sign(rsaA)}${pad}`)), outcome: REFUSED },
    {
      name: `a valid token with "${pad}" after its payload`,
      build: async () => {
        const [header, payload, signature] = (await sign(rsaA)).split(".") as [string, string, string];
        return bearer(remember(`${header}.${payload}${pad}.${signature}`));
      },
      // Not a b64token at all (RFC 6750 §2.1 allows "=" only at the end): refused before verification.
      outcome: MALFORMED,
    },
  ]),
  { name: "a signature by a key not in the JWKS, under a published kid", build: async () => bearer(await sign(rogue)), outcome: REFUSED },
  { name: "no kid (the JWKS holds exactly one RSA key, which jose alone would pick)", build: async () => bearer(await sign(rsaA, claims(), {}, true)), outcome: REFUSED },
  { name: "an unknown kid", build: async () => bearer(await sign(rsaA, claims(), { kid: "no-such-key" })), outcome: REFUSED },
  {
    name: "the attacker's own key embedded in the header (jwk)",
    build: async () => bearer(await sign(rogue, claims(), { kid: "attacker", jwk: { kty: rogue.publicJwk.kty, n: rogue.publicJwk.n, e: rogue.publicJwk.e } })),
    outcome: REFUSED,
  },
  {
    name: "a jku / x5u header pointing at the attacker's keys",
    build: async () => bearer(await sign(rogue, claims(), { kid: "attacker", jku: `${jwks.origin}/attacker/jwks.json`, x5u: `${jwks.origin}/attacker/cert.pem` })),
    outcome: REFUSED,
  },
  {
    name: "a critical header extension the server does not understand",
    build: async () =>
      bearer(
        remember(
          await new SignJWT(claims())
            .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: rsaA.kid, crit: ["urn:example:bind"], "urn:example:bind": true })
            .sign(rsaA.privateKey, { crit: { "urn:example:bind": true } }),
        ),
      ),
    outcome: REFUSED,
  },
  { name: "typ dpop+jwt (a DPoP proof is not an access token)", build: async () => bearer(await sign(rsaA, claims(), { typ: "dpop+jwt" })), outcome: REFUSED },
  { name: "three base64url segments that are not a JWT", build: async () => bearer(remember("bm90.YSBqd3Q.c2lnbmF0dXJl")), outcome: REFUSED },

  // Claims: audience, issuer, time, subject.
  { name: "a wrong audience", build: async () => bearer(await sign(rsaA, claims({ aud: "https://other.example/api/mcp" }))), outcome: REFUSED },
  { name: "no audience", build: async () => bearer(await sign(rsaA, claims({}, ["aud"]))), outcome: REFUSED },
  { name: "a token for another resource on this origin", build: async () => bearer(await sign(rsaA, claims({ aud: mcpUrl.replace("/api/mcp", "/api/conformance/mcp") }))), outcome: REFUSED },
  { name: "the resource URL with a trailing slash (not the canonical audience)", build: async () => bearer(await sign(rsaA, claims({ aud: `${mcpUrl}/` }))), outcome: REFUSED },
  { name: "a wrong issuer", build: async () => bearer(await sign(rsaA, claims({ iss: `${jwks.origin}/other-issuer` }))), outcome: REFUSED },
  { name: "no issuer", build: async () => bearer(await sign(rsaA, claims({}, ["iss"]))), outcome: REFUSED },
  { name: "expired an hour ago", build: async () => bearer(await sign(rsaA, claims({ iat: now() - 7200, exp: now() - 3600 }))), outcome: REFUSED },
  { name: "nbf an hour in the future", build: async () => bearer(await sign(rsaA, claims({ nbf: now() + 3600 }))), outcome: REFUSED },
  { name: "iat an hour in the future, no nbf", build: async () => bearer(await sign(rsaA, claims({ iat: now() + 3600, exp: now() + 7200 }))), outcome: REFUSED },
  { name: "issued 25 h ago with a far exp (older than the 24 h max token age)", build: async () => bearer(await sign(rsaA, claims({ iat: now() - 25 * 3600, exp: now() + 3600 }))), outcome: REFUSED },
  { name: "no exp", build: async () => bearer(await sign(rsaA, claims({}, ["exp"]))), outcome: REFUSED },
  { name: "no iat", build: async () => bearer(await sign(rsaA, claims({}, ["iat"]))), outcome: REFUSED },
  { name: "no sub", build: async () => bearer(await sign(rsaA, claims({}, ["sub"]))), outcome: REFUSED },
  { name: "an empty sub", build: async () => bearer(await sign(rsaA, claims({ sub: "" }))), outcome: REFUSED },
  { name: "a numeric sub", build: async () => bearer(await sign(rsaA, claims({ sub: 42 as unknown as string }))), outcome: REFUSED },
  // Outside probe, 2026-11-29: a NUL in the subject was an internal error on every data call and
  // lost the other callers' audit rows of its batch.
  { name: "a sub with a NUL", build: async () => bearer(await sign(rsaA, claims({ sub: "carol\u0000x" }))), outcome: REFUSED },
  { name: "a sub with a control character", build: async () => bearer(await sign(rsaA, claims({ sub: "carol\u001bx" }))), outcome: REFUSED },
  { name: "a sub with a lone surrogate", build: async () => bearer(await sign(rsaA, claims({ sub: "carol\ud800" }))), outcome: REFUSED },
  { name: "a sub in another script (accepted)", build: async () => bearer(await sign(rsaA, claims({ sub: `käthe-${randomUUID()}-😀` }))), outcome: OK },

  // How the token is carried (RFC 6750 §2.1: the Authorization header, `Bearer` 1*SP b64token).
  {
    name: "the token in the query string (?access_token=), no header",
    build: async () => {
      const token = await sign(rsaA);
      return { query: `?access_token=${token}`, tokens: [token] };
    },
    outcome: MALFORMED,
  },
  {
    name: "the token in the query string under a percent-encoded name (?access%5Ftoken=)",
    build: async () => {
      const token = await sign(rsaA);
      return { query: `?access%5Ftoken=${token}`, tokens: [token] };
    },
    outcome: MALFORMED,
  },
  {
    name: "the token in both the header and the query string",
    build: async () => {
      const token = await sign(rsaA);
      return { authorization: `Bearer ${token}`, query: `?access_token=${token}`, tokens: [token] };
    },
    outcome: MALFORMED,
  },
  { name: 'Authorization: "Bearer" (no token)', build: async () => ({ authorization: "Bearer", tokens: [] }), outcome: MALFORMED },
  // fetch strips the trailing whitespace, as any HTTP stack may: the server sees "bearer".
  { name: 'Authorization: "bearer  " (scheme and spaces only)', build: async () => ({ authorization: "bearer  ", tokens: [] }), outcome: MALFORMED },
  { name: 'Authorization: "Bearer a b" (two tokens)', build: async () => ({ authorization: "Bearer a b", tokens: [] }), outcome: MALFORMED },
  {
    name: "two Bearer credentials in one header",
    build: async () => {
      const [one, two] = [await sign(rsaA), await sign(rsaA)];
      return { authorization: `Bearer ${one}, Bearer ${two}`, tokens: [one, two] };
    },
    outcome: MALFORMED,
  },
  {
    name: "a tab instead of a space after Bearer",
    build: async () => {
      const token = await sign(rsaA);
      return { authorization: `Bearer\t${token}`, tokens: [token] };
    },
    outcome: MALFORMED,
  },
  { name: "characters outside b64token", build: async () => ({ authorization: "Bearer abc$def", tokens: [] }), outcome: MALFORMED },
  // Another scheme is "an unsupported authentication method" (RFC 6750 §3.1): treated as no
  // credentials, so required mode answers 401 without an error code.
  { name: 'Authorization: "Basic xyz"', build: async () => ({ authorization: "Basic xyz", tokens: [] }), outcome: NO_CREDENTIALS },
  {
    name: "an oversized (> 8 KB) but correctly signed token",
    build: async () => {
      const token = await sign(rsaA, claims({ padding: "x".repeat(9 * 1024) }));
      expect(token.length).toBeGreaterThan(9 * 1024);
      return bearer(token);
    },
    outcome: MALFORMED,
  },

  // Scopes: authenticated, but not allowed to do this (403 names what is missing).
  {
    name: "worlds:read only, calling create_world",
    build: async () => ({ ...bearer(await sign(rsaA, claims({ scope: "worlds:read" }))), tool: "create_world" }),
    outcome: { status: 403, error: "insufficient_scope", scope: "worlds:write" },
  },
  { name: "no scope claim, calling list_worlds", build: async () => bearer(await sign(rsaA, claims({}, ["scope"]))), outcome: { status: 403, error: "insufficient_scope", scope: "worlds:read" } },
  { name: "an unknown scope only, calling list_worlds", build: async () => bearer(await sign(rsaA, claims({ scope: "worlds:admin" }))), outcome: { status: 403, error: "insufficient_scope", scope: "worlds:read" } },
];

const cases: AttackCase[] = rows.map((row) => ({ title: `${row.name} → ${label(row.outcome)}`, build: row.build, outcome: row.outcome }));

describe("bearer token attack matrix (MCP_AUTH_MODE=required, external issuer)", () => {
  it("publishes the protected resource metadata the challenges point to", async () => {
    const res = await fetch(metadataUrl);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.resource).toBe(mcpUrl);
    expect(body.authorization_servers).toEqual([issuer]);
    expect(body.bearer_methods_supported).toEqual(["header"]);
  });

  // "%s" rather than "$title": vitest shortens $-interpolated strings to 40 characters.
  it.each(cases.map((c) => [c.title, c] as const))("%s", async (_title, { build, outcome }) => {
    const attempt = await build();
    const args: Json = attempt.tool === "create_world" ? { name: `Forbidden ${randomUUID().slice(0, 6)}`, theme: "fantasy" } : {};
    const reply = await callTool(attempt.tool ?? "list_worlds", args, { authorization: attempt.authorization, query: attempt.query });
    expectOutcome(reply, outcome, attempt.tokens);
  });

  // Outside review (2026-11-28): a token minted for another origin (npm run token without the
  // server's MCP_RESOURCE_URL) got "unexpected issuer" with no word of the one expected.
  it("a wrong issuer's refusal names the issuer this resource accepts", async () => {
    const reply = await callTool("list_worlds", {}, bearer(await sign(rsaA, claims({ iss: `${jwks.origin}/other-issuer` }))));
    expect(reply.status).toBe(401);
    expect(reply.headers.get("www-authenticate") ?? "").toContain(`unexpected issuer (this server accepts ${issuer})`);
  });

  it("never fetches a key URL an attacker names in a token header (jku, x5u)", () => {
    expect(jwks.requests("/attacker/jwks.json")).toBe(0);
    expect(jwks.requests("/attacker/cert.pem")).toBe(0);
  });

  it("lets a valid worlds:write token create a world that list_worlds then shows to the same subject", async () => {
    const sub = newSubject();
    const name = `Citadel ${randomUUID().slice(0, 8)}`;
    const created = await callTool("create_world", { name, theme: "fantasy" }, { authorization: `Bearer ${await sign(rsaA, claims({ sub }))}` });
    expectOutcome(created, OK, []);
    // A second, distinct token for the same subject: the data belongs to the subject, not the token.
    const listed = await listWorlds(`Bearer ${await sign(ecB, claims({ sub, scope: "worlds:read" }))}`);
    expectOutcome(listed, OK, []);
    const structured = (listed.json?.result as Json | undefined)?.structuredContent as { worlds?: { name?: string }[] } | undefined;
    expect(structured?.worlds?.map((w) => w.name)).toEqual([name]);
  });
});

// ── Key rotation ─────────────────────────────────────────────────────────────────────────────

interface Polled {
  reply: Reply;
  elapsedMs: number;
  seen: Reply[];
}

/** Repeats `attempt` until `done` or `withinMs` has passed; bounded, never a blind sleep. */
async function pollUntil(attempt: () => Promise<Reply>, done: (reply: Reply) => boolean, withinMs: number): Promise<Polled> {
  const started = Date.now();
  const seen: Reply[] = [];
  for (;;) {
    const reply = await attempt();
    seen.push(reply);
    if (done(reply) || Date.now() - started > withinMs) return { reply, elapsedMs: Date.now() - started, seen };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const challengeError = (reply: Reply) => parseChallenge(reply.headers.get("www-authenticate") ?? "Bearer").params.error;

describe("JWKS key rotation (cooldown 1 s, cache max age 2 s)", () => {
  /**
   * One rotation: make the verifier refetch now (an unknown kid), publish `key`, then call with fresh
   * tokens signed by it until one is accepted. Returns the replies and when the JWKS server was
   * fetched, so the caller can tell whether the first call landed inside the cooldown at all.
   */
  async function rotateTo(key: TestKey, published: readonly JWK[]) {
    // Signed ahead of time, so the first call goes out the moment the refetch is seen.
    const first = `Bearer ${await sign(key)}`;
    const fetchesBefore = jwks.requests("/jwks.json");
    const primed = await pollUntil(
      async () => listWorlds(`Bearer ${await sign(rsaA, claims(), { kid: `unknown-${randomUUID().slice(0, 6)}` })}`),
      () => jwks.requests("/jwks.json") > fetchesBefore,
      3_000,
    );
    expect(jwks.requests("/jwks.json"), "the unknown kid never caused a refetch").toBeGreaterThan(fetchesBefore);
    expectOutcome(primed.reply, REFUSED, []);
    const primedFetches = jwks.requests("/jwks.json");

    jwks.setKeys(published);
    let calls = 0;
    // Fresh tokens each time (new jti): no answer can come from the verifier's per-token cache.
    const polled = await pollUntil(async () => listWorlds(calls++ === 0 ? first : `Bearer ${await sign(key)}`), (r) => r.status === 200, 5_000);
    const fetchTimes = jwks.requestTimes("/jwks.json");
    return { polled, cooldownStartedAt: fetchTimes[primedFetches - 1] ?? 0, laterFetches: fetchTimes.slice(primedFetches) };
  }

  it("refuses a newly published key during the refetch cooldown, then accepts it once the cooldown has passed", async () => {
    // On a loaded machine the first call can reach the verifier after the 1 s cooldown has already
    // run out; it is then (rightly) accepted, and the refusal half is unobserved. Such a round proves
    // nothing about the cooldown's refusal, so it is repeated with another new key, a few times at most.
    const published = [rsaA.publicJwk, ecB.publicJwk];
    let observed = false;
    for (let round = 0; round < 4 && !observed; round++) {
      const key = round === 0 ? rsaC : await makeKey("RS256", `rsa-rotated-${round}`);
      published.push(key.publicJwk);
      const { polled, cooldownStartedAt, laterFetches } = await rotateTo(key, [...published]);
      expectOutcome(polled.reply, OK, []);
      // jose's DoS guard in every round: the fetch that brought the new key came a full cooldown
      // (1 s) after the one the unknown kid caused, never sooner.
      expect(laterFetches.length, "the new key was accepted without a refetch").toBeGreaterThan(0);
      expect(laterFetches[0]! - cooldownStartedAt, "the verifier refetched within the cooldown").toBeGreaterThanOrEqual(1_000);
      observed = polled.seen.length > 1;
      // Within the cooldown the new kid is unknown and no refetch is allowed: every call before the accepted one was refused.
      for (const early of polled.seen.slice(0, -1)) expectOutcome(early, REFUSED, []);
    }
    expect(observed, "no call in four rounds reached the verifier inside the cooldown").toBe(true);
  });

  it("refuses a token from a removed key once the JWKS cache max age has passed, including one verified before", async () => {
    const verifiedBefore = `Bearer ${await sign(rsaA)}`;
    expectOutcome(await listWorlds(verifiedBefore), OK, []);
    const fetchesBefore = jwks.requests("/jwks.json");
    jwks.setKeys([ecB.publicJwk, rsaC.publicJwk]);

    const polled = await pollUntil(async () => listWorlds(`Bearer ${await sign(rsaA)}`), (r) => r.status !== 200, 8_000);
    expectOutcome(polled.reply, REFUSED, []);
    expect(challengeError(polled.reply)).toBe("invalid_token");
    expect(jwks.requests("/jwks.json")).toBeGreaterThan(fetchesBefore);

    // The token verified before the removal is cached for at most min(60 s, 2 s, exp): it stops too.
    const stale = await pollUntil(() => listWorlds(verifiedBefore), (r) => r.status !== 200, 3_000);
    expectOutcome(stale.reply, REFUSED, []);

    // The keys still published keep working.
    expectOutcome(await listWorlds(`Bearer ${await sign(rsaC)}`), OK, []);
    expectOutcome(await listWorlds(`Bearer ${await sign(ecB)}`), OK, []);
  });
});

// ── Key endpoint outage ──────────────────────────────────────────────────────────────────────

describe("JWKS endpoint failing", () => {
  /**
   * jose 6 reports a non-200 JWKS answer as a plain JOSEError ("Expected 200 OK from the JSON Web
   * Key Set HTTP response"). At commit 88e1867 lib/auth/jwt-verifier.ts turned that into
   * TokenRejected, so a perfectly good token got 401 invalid_token ("the token is malformed") and a
   * client would throw it away and sign in again. This row keeps that from coming back.
   */
  it("answers 503 with Retry-After, not 401 invalid_token, while the key endpoint answers 500", async () => {
    jwks.setFailure(500);
    try {
      // Once the cached key set is older than its max age (2 s), verification needs a fetch that fails.
      const polled = await pollUntil(async () => listWorlds(`Bearer ${await sign(ecB)}`), (r) => r.status !== 200, 4_000);
      const context = `${polled.reply.status} ${polled.reply.headers.get("www-authenticate") ?? ""} ${polled.reply.text.slice(0, 300)}`;
      // The caller's token is fine: telling it invalid_token would make a client throw it away.
      expect(polled.reply.status, context).toBe(503);
      expect(polled.reply.headers.get("retry-after"), context).toBe("5");
      // Not an authentication failure: no challenge that would send the client to sign in again.
      expect(polled.reply.headers.get("www-authenticate"), context).toBeNull();
    } finally {
      jwks.setFailure(undefined);
    }
  });

  it("accepts tokens again as soon as the key endpoint answers again", async () => {
    const recovered = await pollUntil(async () => listWorlds(`Bearer ${await sign(ecB)}`), (r) => r.status === 200, 4_000);
    expectOutcome(recovered.reply, OK, []);
  });
});

// ── Logs ─────────────────────────────────────────────────────────────────────────────────────

describe("server logs", () => {
  it("never contain a token that was sent, nor its payload or signature segment", () => {
    const output = `${server.stderr()}\n${serverOutput}`;
    // The capture works: the request log (stdout, redirected) has lines for the calls made above.
    expect(output).toMatch(/"method":"tools\/call"/);
    expect(sentTokens.size).toBeGreaterThan(40);
    for (const token of sentTokens) {
      expect(output.includes(token), `a token appears in the server output`).toBe(false);
      for (const segment of token.split(".").slice(1)) {
        if (segment.length >= 16) expect(output.includes(segment), `a token segment appears in the server output`).toBe(false);
      }
    }
  });
});
