import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_AND_SSE, LATEST, post } from "../support/mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { Registry } from "../../lib/mcp/registry";
import { worldcrafterServer } from "../../lib/worlds/server-definition";
import { invalidArgumentOf } from "../support/tool-errors";

/**
 * The input limits of a public endpoint, on a server configured tight enough to reach them:
 * body size (413), batch length, JSON depth, header size (431), bounded strings and arrays in
 * every tool's arguments, long-lived streams that end inside their lifetime and let the client
 * come back (GET resumes with Last-Event-ID; listen ends with its result), and the built-in
 * authorization server's bodies (/api/auth/*, /auth/submit/*: 413 past 64 KiB, before the rest
 * is read).
 */

let server: RunningNextServer;
let database: TestSchema;
let url = "";

const LIMITS = {
  MCP_MAX_BODY_BYTES: "2048",
  MCP_MAX_BATCH: "3",
  MCP_MAX_JSON_DEPTH: "8",
  MCP_MAX_HEADER_BYTES: "4096",
  MCP_STREAM_MAX_LIFETIME_MS: "1500",
  MCP_LISTEN_MAX_LIFETIME_MS: "1500",
  MCP_RESUME_GRACE_MS: "5000",
};

beforeAll(async () => {
  database = await migratedTestSchema("wc_limits");
  const port = await freePort();
  server = await startNextServer({
    port,
    env: {
      ...LIMITS,
      DATABASE_URL: database.url,
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      MCP_RATE_LIMITS: "0",
    },
  });
  url = `${server.url}/api/mcp`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

const errorOf = (json: unknown) => (json as { error?: { code: number; data?: unknown } }).error;
/** The message of an `invalid_argument` isError result; undefined for any other answer. */
const invalidArgumentMessage = (json: unknown) => invalidArgumentOf((json as { result?: unknown }).result)?.message;

describe("request size limits", () => {
  it("a body over MCP_MAX_BODY_BYTES is refused with 413 before it is parsed", async () => {
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(4096) } });
    expect(r.status).toBe(413);
    expect(errorOf(r.json)?.code).toBe(-32600);
  });

  it("a 2025-03-26 batch longer than MCP_MAX_BATCH is refused whole", async () => {
    const batch = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    const r = await post(url, batch, { "mcp-protocol-version": "2025-03-26" });
    expect(r.status).toBe(400);
    expect(errorOf(r.json)).toMatchObject({ code: -32600, data: { maxBatch: 3 } });
  });

  it("JSON nested deeper than MCP_MAX_JSON_DEPTH is refused", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 12; i += 1) deep = { d: deep };
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { deep } });
    expect(r.status).toBe(400);
  });

  it("headers over MCP_MAX_HEADER_BYTES get 431", async () => {
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "x-padding": "p".repeat(5000) });
    expect(r.status).toBe(431);
    expect(errorOf(r.json)?.code).toBe(-32600);
  });

  it("every tool argument string and array is bounded by its schema (an invalid_argument tool error beyond)", async () => {
    const registry = new Registry(worldcrafterServer.contents);
    const unbounded: string[] = [];
    const walk = (schema: Record<string, unknown>, path: string) => {
      if (schema.type === "string" && typeof schema.maxLength !== "number" && !Array.isArray(schema.enum)) unbounded.push(path);
      if (schema.type === "array" && typeof schema.maxItems !== "number") unbounded.push(path);
      if (schema.type === "number" || schema.type === "integer") {
        if (typeof schema.maximum !== "number") unbounded.push(path);
      }
      for (const [key, child] of Object.entries((schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) walk(child, `${path}.${key}`);
      if (schema.items && typeof schema.items === "object") walk(schema.items as Record<string, unknown>, `${path}[]`);
    };
    for (const tool of registry.listTools().items) walk((tool as { inputSchema: Record<string, unknown> }).inputSchema, tool.name as string);
    expect(unbounded).toEqual([]);

    // And the server enforces them: one string and one array over their bounds.
    const call = (args: Record<string, unknown>) =>
      post(url, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "suggest_names", arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "suggest_names" });
    // 2026-07-28 server/tools §error handling: input validation errors are tool execution errors.
    expect(invalidArgumentMessage((await call({ seed: "s".repeat(101) })).json)).toMatch(/\bseed: /);
    expect(invalidArgumentMessage((await call({ count: 1000 })).json)).toMatch(/\bcount: /);
  });
});

/** Reads an SSE response until it ends (or `limitMs` passes); returns what arrived and when it ended. */
async function readToEnd(res: Response, limitMs: number): Promise<{ text: string; endedAfterMs: number | undefined }> {
  const started = Date.now();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = setTimeout(() => void reader.cancel(), limitMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, endedAfterMs: Date.now() - started };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, endedAfterMs: undefined };
  } finally {
    clearTimeout(deadline);
  }
}

describe("long-lived streams end inside their lifetime, and clients come back", () => {
  it("a GET stream connection ends after MCP_STREAM_MAX_LIFETIME_MS; Last-Event-ID resumes it", async () => {
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "limits", version: "1" } } });
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": LATEST };
    await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session);

    const first = await fetch(url, { headers: { accept: "text/event-stream", ...session } });
    expect(first.status).toBe(200);
    const { text, endedAfterMs } = await readToEnd(first, 6_000);
    // It ended by itself, on time, after telling the client where it was and how soon to retry.
    expect(endedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(endedAfterMs).toBeLessThan(4_000);
    const lastId = /^id: (\S+)$/m.exec(text)?.[1];
    expect(lastId, text).toBeDefined();
    expect(text).toMatch(/^retry: \d+$/m);

    const again = await fetch(url, { headers: { accept: "text/event-stream", "last-event-id": lastId!, ...session } });
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it("a subscriptions/listen stream ends after MCP_LISTEN_MAX_LIFETIME_MS with its result", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });
    expect(res.status).toBe(200);
    const { text, endedAfterMs } = await readToEnd(res, 6_000);
    expect(endedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(endedAfterMs).toBeLessThan(4_000);
    // The closing SubscriptionsListenResult is a result like any other: resultType, the
    // subscription's id and serverInfo in _meta (schema: servers SHOULD include it on every response).
    const closing = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as { id?: unknown; result?: unknown }).find((m) => m.id === "listen-1");
    expect(closing?.result).toEqual({
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1", "io.modelcontextprotocol/serverInfo": expect.objectContaining({ name: "worldcrafter" }) },
    });
  });
});

/**
 * A POST whose body is sent as given and then held open (never ended): the answer must come from
 * what was sent, before any more. Resolves with the status and text of the answer.
 */
function postHeldOpen(target: string, headers: Record<string, string>, chunks: readonly Buffer[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method: "POST", headers, signal: AbortSignal.timeout(10_000) }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    req.on("error", (error) => reject(new Error(`no answer before the body ended: ${String(error)}`)));
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
  });
}

describe("the authorization server's request bodies", () => {
  const KIB = 1024;
  const ROUTES = [
    { path: "/api/auth/oauth2/register", contentType: "application/json" },
    { path: "/api/auth/sign-in/email", contentType: "application/json" },
    { path: "/auth/submit/sign-in", contentType: "application/x-www-form-urlencoded" },
  ];

  it.each(ROUTES)("$path: a declared Content-Length over 64 KiB is refused 413 before a byte of the body is read", async ({ path, contentType }) => {
    const answer = await postHeldOpen(`${server.url}${path}`, { "content-type": contentType, "content-length": String(300 * KIB * KIB), origin: server.url }, []);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({ error: "invalid_request", error_description: "the request body is larger than 65536 bytes" });
  });

  it.each(ROUTES)("$path: a chunked body is refused 413 once past 64 KiB, without waiting for its end", async ({ path, contentType }) => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(16 * KIB, "a"));
    const answer = await postHeldOpen(`${server.url}${path}`, { "content-type": contentType, "transfer-encoding": "chunked", origin: server.url }, chunks);
    expect(answer.status).toBe(413);
  });

  it("a body within the limit is read whole: a registration padded to 60 KiB is stored", async () => {
    const metadata = { client_name: "padded", redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none", padding: "x".repeat(60 * KIB) };
    const res = await fetch(`${server.url}/api/auth/oauth2/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as { client_name?: string }).client_name).toBe("padded");
  });
});

