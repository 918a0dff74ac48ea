/**
 * WorldCrafter against a real authorization server: `oidc-provider` 9.x runs in-process on
 * loopback (tests/support/oidc-test-provider.ts) and one `next start` trusts it
 * (MCP_AUTH_MODE=required, MCP_AUTH_ISSUER = the provider, MCP_RESOURCE_URL = our /api/mcp).
 *
 * What this proves, end to end and with nothing mocked:
 * - our RFC 9728 metadata names the provider, and our mirror of its RFC 8414 / OpenID metadata
 *   is the provider's own document;
 * - the official MCP SDK client, starting from nothing but our URL, gets a 401 challenge,
 *   discovers the provider through our metadata, registers itself dynamically, runs
 *   authorization_code + PKCE S256 with the RFC 8707 resource indicator (a headless user agent
 *   signs in as "alice" on the provider's development pages and consents), and the provider's JWT
 *   access token — audience our resource URL, kid in the header — opens /api/mcp: the world it
 *   creates belongs to subject "alice" in PostgreSQL;
 * - a dynamically registered confidential client's client_credentials token with worlds:read
 *   reads but cannot write (403 insufficient_scope naming worlds:write);
 * - tokens the same provider issued for another resource, or opaque ones, are 401 invalid_token.
 */
import { randomUUID } from "node:crypto";
import { decodeJwt, decodeProtectedHeader } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, discoverAuthorizationServerMetadata, registerClient, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { authorizeHeadlessly, startAuthorizationServer, type TestAuthorizationServer } from "../support/oidc-test-provider";
import { migrateDatabase, testSchema, type TestSchema } from "../support/test-database";
import { Scope } from "../../lib/worlds/scopes";

const BOTH_SCOPES = `${Scope.Read} ${Scope.Write}`;
/** Never served: the headless user agent stops at the redirect and hands the code to the client. */
const REDIRECT_URI = "http://127.0.0.1:1/callback";

let authServer: TestAuthorizationServer;
let server: RunningNextServer;
let database: TestSchema;
let resourceUrl: string;
let otherResourceUrl: string;
let metadataUrl: string;

beforeAll(async () => {
  // Our port first: the provider's resource servers and our MCP_RESOURCE_URL must name it.
  const port = await freePort();
  resourceUrl = `http://127.0.0.1:${port}/api/mcp`;
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/api/mcp`;
  // Same host, another path: a token for it is a perfectly valid token of our issuer, but not for us.
  otherResourceUrl = `http://127.0.0.1:${port}/api/other`;
  const jwtFor = (audience: string) => ({ scope: BOTH_SCOPES, audience, accessTokenFormat: "jwt" as const, jwt: { sign: { alg: "RS256" } } });
  database = testSchema("wc_oidc");
  [authServer] = await Promise.all([
    startAuthorizationServer({ scopes: [Scope.Read, Scope.Write], resources: { [resourceUrl]: jwtFor(resourceUrl), [otherResourceUrl]: jwtFor(otherResourceUrl) } }),
    migrateDatabase({ DATABASE_URL: database.url }),
  ]);
  try {
    server = await startNextServer({
      port,
      env: {
        MCP_AUTH_MODE: "required",
        MCP_AUTH_ISSUER: authServer.issuer,
        MCP_RESOURCE_URL: resourceUrl,
        DATABASE_URL: database.url,
      },
    });
  } catch (error) {
    await Promise.all([authServer.stop(), database.drop()]);
    throw error;
  }
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await authServer?.stop();
  await database?.drop();
});

/** One HTTP exchange the SDK made (through the transport's fetch, which auth() uses too). */
interface Exchange {
  method: string;
  url: string;
  status: number;
  wwwAuthenticate: string | null;
}

function recordingFetch(log: Exchange[]): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    log.push({ method: init?.method ?? "GET", url: String(url), status: response.status, wwwAuthenticate: response.headers.get("www-authenticate") });
    return response;
  };
}

/**
 * The MCP client's OAuth side for a user with a browser: in-memory storage, and a "browser" that
 * is the headless user agent. redirectToAuthorization completes the whole user interaction and
 * keeps the callback URL; the test then hands its code to transport.finishAuth as an app would.
 */
class HeadlessBrowserClient implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  pages: string[] = [];
  callback: URL | undefined;
  sentState: string | undefined;
  private information: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(private readonly login: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "WorldCrafter oidc-provider test",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      // A public client, as a desktop MCP client is: PKCE is its only proof.
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.sentState = randomUUID();
    return this.sentState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    const { callback, pages } = await authorizeHeadlessly(url, { login: this.login, redirectUri: REDIRECT_URI });
    this.callback = callback;
    this.pages = pages;
  }
}

type Json = Record<string, unknown>;

async function getJson(url: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A raw token request at the provider, authenticated with client_secret_basic. */
async function tokenRequest(client: { id: string; secret: string }, params: Record<string, string>): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${authServer.issuer}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A raw initialize with a bearer token: the first thing any client sends. */
function initializeWith(token: string): Promise<Response> {
  return fetch(resourceUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "oidc-test", version: "1.0.0" } } }),
  });
}

/** Registers a confidential client_credentials client through the SDK's dynamic registration. */
async function registerMachineClient(scope: string): Promise<{ id: string; secret: string }> {
  const metadata = await discoverAuthorizationServerMetadata(authServer.issuer);
  const registered = await registerClient(authServer.issuer, {
    metadata,
    clientMetadata: {
      client_name: "WorldCrafter oidc-provider machine client",
      redirect_uris: [],
      grant_types: ["client_credentials"],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope,
    },
  });
  expect(registered.client_secret, "a confidential client gets a secret").toEqual(expect.any(String));
  return { id: registered.client_id, secret: registered.client_secret as string };
}

async function ownerOf(worldId: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: database.baseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ownerSubject: string }>(`SELECT "ownerSubject" FROM "${database.schema}"."World" WHERE id = $1`, [worldId]);
    return rows[0]?.ownerSubject;
  } finally {
    await client.end();
  }
}

async function closeQuietly(client: Client, transport: StreamableHTTPClientTransport): Promise<void> {
  await transport.terminateSession().catch(() => undefined);
  await client.close();
}

describe("WorldCrafter with oidc-provider as its authorization server", () => {
  it("publishes the provider in its protected resource metadata and mirrors the provider's own metadata", async () => {
    const prm = await getJson(metadataUrl);
    expect(prm.status).toBe(200);
    expect(prm.body).toMatchObject({ resource: resourceUrl, authorization_servers: [authServer.issuer], scopes_supported: [Scope.Read, Scope.Write] });

    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const [ours, theirs] = await Promise.all([getJson(`${server.url}${path}`), getJson(`${authServer.issuer}${path}`)]);
      expect(ours.status, path).toBe(200);
      // The mirror is the provider's document, field for field.
      expect(ours.body, path).toEqual(theirs.body);
      expect(ours.body, path).toMatchObject({
        issuer: authServer.issuer,
        authorization_endpoint: `${authServer.issuer}/auth`,
        token_endpoint: `${authServer.issuer}/token`,
        registration_endpoint: `${authServer.issuer}/reg`,
        jwks_uri: `${authServer.issuer}/jwks`,
        code_challenge_methods_supported: expect.arrayContaining(["S256"]),
      });
    }
  });

  it("authorization_code + PKCE through the SDK's OAuth support: the provider's JWT opens /api/mcp as alice", async () => {
    const exchanges: Exchange[] = [];
    const fetchFn = recordingFetch(exchanges);
    const browser = new HeadlessBrowserClient("alice");

    // 1. Knowing only our URL: 401 → discovery → registration → authorization (the "browser" runs it).
    const first = new StreamableHTTPClientTransport(new URL(resourceUrl), { authProvider: browser, fetch: fetchFn });
    const firstClient = new Client({ name: "oidc-e2e", version: "1.0.0" });
    await expect(firstClient.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await firstClient.close();

    const challenged = exchanges.find((e) => e.url === resourceUrl && e.method === "POST");
    expect(challenged).toMatchObject({ status: 401, wwwAuthenticate: `Bearer resource_metadata="${metadataUrl}", scope="${BOTH_SCOPES}"` });
    // The SDK read our metadata (the URL from the challenge), then the provider's, then registered there.
    const urls = exchanges.map((e) => `${e.method} ${e.url}`);
    expect(urls).toContain(`GET ${metadataUrl}`);
    expect(urls.some((u) => u.startsWith(`GET ${authServer.issuer}/.well-known/`))).toBe(true);
    expect(urls).toContain(`POST ${authServer.issuer}/reg`);
    const client = browser.clientInformation();
    expect(client?.client_id).toEqual(expect.any(String));

    expect(browser.authorizationUrls).toHaveLength(1);
    const authorization = browser.authorizationUrls[0] as URL;
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${authServer.issuer}/auth`);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: "code",
      client_id: client?.client_id,
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      redirect_uri: REDIRECT_URI,
      resource: resourceUrl,
      scope: BOTH_SCOPES,
    });
    expect(browser.pages).toEqual(["login", "consent"]);
    const callback = browser.callback as URL;
    expect(callback.searchParams.get("state")).toBe(browser.sentState);
    // RFC 9207: the response names its issuer (mix-up defence).
    expect(callback.searchParams.get("iss")).toBe(authServer.issuer);
    const code = callback.searchParams.get("code");
    expect(code).toEqual(expect.any(String));

    // 2. The app hands the code back; the SDK exchanges it with the verifier and the resource.
    await first.finishAuth(code as string);
    const accessToken = browser.tokens()?.access_token as string;
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: "RS256", typ: "at+jwt", kid: authServer.signingKid });
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ iss: authServer.issuer, aud: resourceUrl, sub: "alice", scope: BOTH_SCOPES, client_id: client?.client_id });
    expect(claims.iat).toEqual(expect.any(Number));
    expect(claims.exp).toEqual(expect.any(Number));

    // 3. Reconnect with the token: every MCP request now succeeds.
    const transport = new StreamableHTTPClientTransport(new URL(resourceUrl), { authProvider: browser, fetch: fetchFn });
    const mcp = new Client({ name: "oidc-e2e", version: "1.0.0" });
    try {
      const before = exchanges.length;
      await mcp.connect(transport);
      const tools = await mcp.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["create_world", "get_world", "list_worlds"]));

      const name = `Oidcland ${randomUUID().slice(0, 8)}`;
      const created = await mcp.callTool({ name: "create_world", arguments: { name, theme: "fantasy" } });
      expect(created.isError).toBeFalsy();
      const worldId = ((created.structuredContent as Json).world as Json).id as string;
      expect(worldId).toEqual(expect.any(String));
      const got = await mcp.callTool({ name: "get_world", arguments: { worldId } });
      expect(got.isError).toBeFalsy();
      expect((got.structuredContent as Json).world).toMatchObject({ id: worldId, name, theme: "fantasy" });

      // The row is alice's: the subject came from the provider's login page through the token.
      expect(await ownerOf(worldId)).toBe("alice");
      // No second authorization and no refusal after the token was there.
      expect(browser.authorizationUrls).toHaveLength(1);
      expect(exchanges.slice(before).filter((e) => e.url === resourceUrl && e.status >= 400)).toEqual([]);
    } finally {
      await closeQuietly(mcp, transport);
    }
  });

  it("client_credentials: a dynamically registered confidential client with worlds:read reads, and is refused writes with 403 insufficient_scope", async () => {
    const machine = await registerMachineClient(Scope.Read);
    const exchanges: Exchange[] = [];
    const provider = new ClientCredentialsProvider({ clientId: machine.id, clientSecret: machine.secret, scope: Scope.Read, expectedIssuer: authServer.issuer });
    const transport = new StreamableHTTPClientTransport(new URL(resourceUrl), { authProvider: provider, fetch: recordingFetch(exchanges) });
    const mcp = new Client({ name: "oidc-machine", version: "1.0.0" });
    try {
      // The SDK meets the 401, discovers the provider and fetches the token itself (no user involved).
      await mcp.connect(transport);
      expect(exchanges.find((e) => e.url === resourceUrl)?.status).toBe(401);
      expect(exchanges.some((e) => e.method === "POST" && e.url === `${authServer.issuer}/token` && e.status === 200)).toBe(true);

      const accessToken = provider.tokens()?.access_token as string;
      expect(decodeProtectedHeader(accessToken)).toMatchObject({ typ: "at+jwt", kid: authServer.signingKid });
      // For client_credentials the subject is the client itself.
      expect(decodeJwt(accessToken)).toMatchObject({ iss: authServer.issuer, aud: resourceUrl, sub: machine.id, scope: Scope.Read });

      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      const listed = await mcp.callTool({ name: "list_worlds", arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as Json).worlds).toEqual([]);

      // Writing needs worlds:write. The SDK tries to step up once (same client, same grant), then gives up.
      const refused = await mcp.callTool({ name: "create_world", arguments: { name: "Forbidden", theme: "fantasy" } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StreamableHTTPError);
      expect((refused as StreamableHTTPError).code).toBe(403);
      const forbidden = exchanges.filter((e) => e.url === resourceUrl && e.status === 403);
      expect(forbidden.length).toBeGreaterThan(0);
      for (const e of forbidden) {
        expect(e.wwwAuthenticate).toContain('error="insufficient_scope"');
        expect(e.wwwAuthenticate).toContain(`scope="${Scope.Write}"`);
        expect(e.wwwAuthenticate).toContain(`resource_metadata="${metadataUrl}"`);
      }
    } finally {
      await closeQuietly(mcp, transport);
    }
  });

  it("tokens of the same provider for another resource, opaque tokens and unknown resources are refused", async () => {
    const machine = await registerMachineClient(Scope.Read);

    // The provider refuses resources it does not know (getResourceServerInfo → invalid_target).
    const unknown = await tokenRequest(machine, { grant_type: "client_credentials", scope: Scope.Read, resource: "https://elsewhere.example/api" });
    expect(unknown).toMatchObject({ status: 400, body: { error: "invalid_target" } });

    // A JWT from our trusted issuer, signed with the key our server fetched, but for another audience.
    const other = await tokenRequest(machine, { grant_type: "client_credentials", scope: Scope.Read, resource: otherResourceUrl });
    expect(other.status).toBe(200);
    const otherToken = other.body.access_token as string;
    expect(decodeProtectedHeader(otherToken).kid).toBe(authServer.signingKid);
    expect(decodeJwt(otherToken)).toMatchObject({ iss: authServer.issuer, aud: otherResourceUrl });
    const wrongAudience = await initializeWith(otherToken);
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(wrongAudience.headers.get("www-authenticate")).toContain("audience");

    // No resource indicator: oidc-provider issues an opaque token (only good at its userinfo endpoint).
    const opaque = await tokenRequest(machine, { grant_type: "client_credentials", scope: Scope.Read });
    expect(opaque.status).toBe(200);
    const opaqueToken = opaque.body.access_token as string;
    expect(opaqueToken.split(".")).toHaveLength(1);
    const notAJwt = await initializeWith(opaqueToken);
    expect(notAJwt.status).toBe(401);
    expect(notAJwt.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(notAJwt.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`);
  });
});
