import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { JSON_AND_SSE, LATEST, post } from "../support/mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { Registry } from "../../lib/mcp/registry";
import { worldcrafterServer } from "../../lib/worlds/server-definition";
import { invalidArgumentOf } from "../support/tool-errors";

/**
 * The input limits of a public endpoint, on a server configured tight enough to reach them:
 * body size (413), batch length, JSON depth, header size (431), bounded strings and arrays in
 * every tool's arguments, and long-lived streams that end inside their lifetime and let the
 * client come back (GET resumes with Last-Event-ID; listen ends with its result). Bodies: one
 * that is not UTF-8, or carries a lone surrogate, stores nothing.
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
      MCP_AUTH_KEYS_DIR: inject("devIssuerDir"),
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

const V2026 = "2026-07-28";
const META_2026 = { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} };

describe("request bodies", () => {
  const createWorld = async (token: string, body: string | Uint8Array<ArrayBuffer>) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": "tools/call", "mcp-name": "create_world" },
      body,
    });
  const createWorldText = (name: string) => `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_world","arguments":{"name":"${name}","theme":"test"},"_meta":${JSON.stringify(META_2026)}}}`;

  it("a body that is not UTF-8, or a name with a lone surrogate, creates no world (RFC 8259 §8.1, §8.2)", async () => {
    const token = await tokenFor(server.url, newSubject("utf8"));
    const [before, after] = createWorldText("Bad#byte").split("#") as [string, string];
    const raw = await createWorld(token, new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)])));
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ id: null, error: { code: -32700 } });

    const surrogate = await createWorld(token, createWorldText("Sur\\ud800rogate"));
    expect(surrogate.status).toBe(200);
    expect(invalidArgumentMessage(await surrogate.json())).toMatch(/\bname: Unpaired surrogates are not allowed/);

    // Nothing was stored: the caller has no world at all (a replaced byte would read "Bad\uFFFDbyte").
    const listed = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": "tools/call", "mcp-name": "list_worlds" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_worlds", arguments: {}, _meta: META_2026 } }),
    });
    expect(((await listed.json()) as { result: { structuredContent: { worlds: unknown[] } } }).result.structuredContent.worlds).toEqual([]);
  });
});
