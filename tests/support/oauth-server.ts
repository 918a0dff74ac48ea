import { randomUUID } from "node:crypto";
import { JSON_AND_SSE, sseMessages } from "./mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "./next-server.mjs";
import { migratedTestSchema, type TestSchema } from "./test-database";

/**
 * A production server whose issuer is its own built-in authorization server, configured as a
 * deployment would be (secret from the environment, keys in PostgreSQL, tokens required), with
 * access tokens short enough that a test can outwait them.
 */

export const ACCESS_TOKEN_TTL_SECONDS = 5;
export const AUTH_TEST_SECRET = "auth-test-better-auth-secret-0123456789abcdef";

export interface AuthServerUnderTest {
  server: RunningNextServer;
  origin: string;
  mcpUrl: string;
  database: TestSchema;
  /** The server's environment (what startAuthServer set and the caller added). */
  env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startAuthServer(env: Record<string, string> = {}): Promise<AuthServerUnderTest> {
  const database = await migratedTestSchema("wc_oauth");
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const serverEnv = {
    DATABASE_URL: database.url,
    BETTER_AUTH_SECRET: AUTH_TEST_SECRET,
    MCP_RESOURCE_URL: `${origin}/api/mcp`,
    MCP_AUTH_MODE: "required",
    MCP_AUTH_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS),
    MCP_AUTH_CLOCK_TOLERANCE_SECONDS: "0",
    MCP_RATE_LIMITS: "0",
    MCP_REQUEST_STATE_SECRET: "oauth-test-request-state-secret-0123456789abcdef",
    ...env,
  };
  try {
    const server = await startNextServer({ port, env: serverEnv });
    return { server, origin, mcpUrl: `${origin}/api/mcp`, database, env: serverEnv, stop: async () => { await server.stop(); await database.drop(); } };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/**
 * Another instance of `first`'s deployment: its environment, database and issuer (requests to it
 * name `first.origin` as their Origin), on a port of its own. Stop it before `first`, which drops
 * the database.
 */
export async function startAnotherInstance(first: AuthServerUnderTest): Promise<RunningNextServer> {
  return startNextServer({ port: await freePort(), env: { ...first.env } });
}

export interface McpReply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

/** One 2026-07-28 (stateless) tools/call with a bearer token. */
export async function callTool2026(mcpUrl: string, token: string | undefined, name: string, args: Record<string, unknown>): Promise<McpReply> {
  const V = "2026-07-28";
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: JSON_AND_SSE,
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: randomUUID(),
      method: "tools/call",
      params: { name, arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let body: unknown;
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) body = sseMessages(text).find((m) => typeof m === "object" && m !== null && ("result" in m || "error" in m));
  else body = text ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, body: typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined };
}

/** A form POST to the token or revocation endpoint, as a public client sends it. */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers }, body: new URLSearchParams(fields), redirect: "manual" });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { raw: text };
  }
  return { status: res.status, body };
}
