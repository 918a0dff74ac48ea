/**
 * Faults: one production server on PostgreSQL (through a TCP forwarder the test can cut) and a
 * Redis of its own (a redis-server the test stops and starts), with MCP_TOOL_TIMEOUT_MS short.
 * Each fault yields its documented answer — never a 5xx from the tool path, never a hang — and
 * the same process serves normally again once the fault is gone, without a restart.
 *
 * - PostgreSQL lost: data tools answer an isError result that says the database is unavailable;
 *   back: the same calls succeed.
 * - Redis lost (sessions and rate limits live there): requests that need a session answer 503
 *   with Retry-After and a JSON-RPC error; the rate limiter fails open (MCP_RATE_LIMIT_FAILURE);
 *   back: new sessions work.
 * - A client dropping mid-stream: its handler is aborted after MCP_RESUME_GRACE_MS; the server
 *   carries on.
 * - A handler that throws: an isError result with a reference (its message only in the log); the next call works.
 * - A handler that never resolves: MCP_TOOL_TIMEOUT_MS ends it with an isError result, and its
 *   signal fires (both protocol eras).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentKeyRow, signAccessToken } from "../../lib/authorization-server/key-file";
import { Scope } from "../../lib/worlds/scopes";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { startRedisProcess, type RedisProcess } from "../support/redis-process";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { V2026, callTool, initialize, isRecord, openStream, postMessage, type Json, type SessionRef } from "../support/raw-sessions";
import { waitFor } from "../support/sdk-client";

let server: RunningNextServer;
let database: TestSchema;
let pg: TcpProxy;
let redis: RedisProcess;
let keyDir: string;
let URL_ = "";
let FIXTURES = "";
let token = "";

const TOOL_TIMEOUT_MS = 1500;

beforeAll(async () => {
  database = await migratedTestSchema("wc_faults");
  const target = new URL(database.url);
  pg = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(database.url);
  viaProxy.port = String(pg.port);
  redis = await startRedisProcess();
  keyDir = mkdtempSync(join(tmpdir(), "wc-faults-issuer-"));
  await currentKeyRow(keyDir);
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/api/mcp`;
  server = await startNextServer({
    port,
    env: {
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: redis.url,
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
      MCP_RESOURCE_URL: resource,
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_AUTH_KEYS_DIR: keyDir,
      MCP_AUTH_MODE: "mixed",
      MCP_CONFORMANCE_FIXTURES: "1",
      MCP_RATE_LIMITS: "1",
      MCP_RATE_LIMIT_FAILURE: "open",
      MCP_RATE_LIMIT_TIMEOUT_MS: "300",
      MCP_CLUSTER_TIMEOUT_MS: "500",
      MCP_TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      MCP_RESUME_GRACE_MS: "500",
      MCP_REQUEST_STATE_SECRET: "faults-only-request-state-secret-0123456789abcdef",
    },
  });
  URL_ = `${server.url}/api/mcp`;
  FIXTURES = `${server.url}/api/conformance/mcp`;
  token = await signAccessToken(keyDir, { issuer: new URL(resource).origin, audience: resource, subject: "faults-user", scopes: [Scope.Read, Scope.Write] });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  await pg?.close();
  await database?.drop();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

const textOf = (result: Json) => (Array.isArray(result.content) ? result.content.map((b) => (isRecord(b) ? String(b.text ?? "") : "")).join(" ") : "");

/** A 2026-07-28 (stateless) tools/call: no session, so it does not depend on Redis. */
async function statelessCall(url: string, name: string, args: Json = {}, auth = true): Promise<{ status: number; body: Json }> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V2026,
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...(auth ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  const json = r.headers.get("content-type")?.includes("event-stream")
    ? (JSON.parse(text.split("\n").filter((l) => l.startsWith("data:") && l.includes('"id":1')).pop()?.slice(5) ?? "{}") as Json)
    : (JSON.parse(text || "{}") as Json);
  return { status: r.status, body: json };
}

async function session(url: string): Promise<SessionRef> {
  const s = await initialize(url, { token });
  await postMessage(url, s.headers, { jsonrpc: "2.0", method: "notifications/initialized" });
  return s;
}

describe("faults", () => {
  it("PostgreSQL lost: data tools say the database is unavailable; back: they work again", async () => {
    const created = await statelessCall(URL_, "create_world", { name: "Faultline", theme: "fantasy" });
    const worldId = ((created.body.result as Json).structuredContent as { world: { id: string } }).world.id;

    await pg.cut();
    try {
      const started = Date.now();
      const during = await statelessCall(URL_, "get_world", { worldId });
      expect(during.status).toBe(200);
      const result = during.body.result as Json;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/database is unavailable/i);
      expect(Date.now() - started).toBeLessThan(12_000);
      // Tools that need no database are untouched.
      const names = await statelessCall(URL_, "suggest_names", { style: "elvish", count: 2 }, false);
      expect((names.body.result as Json).isError).toBeFalsy();
    } finally {
      await pg.restore();
    }
    const back = await waitFor(
      async () => {
        const r = await statelessCall(URL_, "get_world", { worldId });
        return (r.body.result as Json | undefined)?.isError ? undefined : r;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(back?.status).toBe(200);
    expect(((back?.body.result as Json).structuredContent as { world: { name: string } }).world.name).toBe("Faultline");
  });

  it("Redis lost: session requests answer 503 with Retry-After, the limiter fails open; back: sessions work again", async () => {
    const before = await session(URL_);
    expect((await callTool(URL_, before.headers, "suggest_names", { style: "elvish", count: 1 })).isError).toBeFalsy();

    await redis.stop();
    try {
      const started = Date.now();
      const r = await postMessage(URL_, before.headers, { jsonrpc: "2.0", id: "during", method: "tools/list" });
      expect(r.status).toBe(503);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      // A transport-level refusal: the JSON-RPC error of the whole exchange.
      expect(r.messages[0]).toMatchObject({ jsonrpc: "2.0", error: { code: -32603, message: expect.stringMatching(/unavailable/), data: { retryAfter: 2 } } });
      expect(Date.now() - started).toBeLessThan(8_000);
      // A new session cannot be stored either: 503, answering the initialize by its id.
      const refusedInit = await fetch(URL_, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: "init-during", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "faults", version: "1" } } }),
        signal: AbortSignal.timeout(15_000),
      });
      expect(refusedInit.status).toBe(503);
      expect(Number(refusedInit.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refusedInit.json()).toMatchObject({ id: "init-during", error: { code: -32603 } });
      // No session, no Redis needed: a 2026-07-28 call goes through (the limiter fails open).
      const stateless = await statelessCall(URL_, "suggest_names", { style: "elvish", count: 1 }, false);
      expect(stateless.status).toBe(200);
      expect((stateless.body.result as Json).isError).toBeFalsy();
    } finally {
      await redis.start();
    }
    // The restarted Redis is empty (no persistence): the old session is gone, a new one works.
    const after = await waitFor(async () => session(URL_).catch(() => undefined), { timeoutMs: 15_000, intervalMs: 250 });
    if (!after) throw new Error("no session after Redis came back");
    expect((await callTool(URL_, after.headers, "suggest_names", { style: "elvish", count: 1 })).isError).toBeFalsy();
  });

  it("a client dropping mid-stream: its handler is aborted after the grace period and the server carries on", async () => {
    const s = await session(FIXTURES);
    const call = await openStream(FIXTURES, {
      method: "POST",
      headers: s.headers,
      body: { jsonrpc: "2.0", id: "dropped", method: "tools/call", params: { name: "test_slow", arguments: { ms: 8_000 }, _meta: { progressToken: "p" } } },
    });
    await call.reader.next(5_000);
    await call.close();
    const aborted = await waitFor(async () => {
      const list = ((await callTool(FIXTURES, s.headers, "test_cancellations")).structuredContent as { cancelled: Json[] }).cancelled;
      return list.find((c) => c.requestId === "dropped");
    });
    expect(aborted).toBeDefined();
    expect((await callTool(FIXTURES, s.headers, "test_simple_text")).isError).toBeFalsy();
  });

  it("a handler that throws: an isError result with a reference, not its message; the next call works", async () => {
    const s = await session(FIXTURES);
    const thrown = await callTool(FIXTURES, s.headers, "test_throw", { message: "the kiln cracked" });
    expect(thrown.isError).toBe(true);
    expect(textOf(thrown)).toMatch(/^Internal error \(reference [0-9a-f]{8}\)/);
    expect(textOf(thrown)).not.toContain("the kiln cracked");
    expect((await callTool(FIXTURES, s.headers, "test_simple_text")).isError).toBeFalsy();
  });

  it("a handler that never resolves: MCP_TOOL_TIMEOUT_MS ends it with an isError result and fires its signal, in both eras", async () => {
    const s = await session(FIXTURES);
    let started = Date.now();
    const hung = await callTool(FIXTURES, s.headers, "test_hang");
    const took = Date.now() - started;
    expect(hung.isError).toBe(true);
    expect(textOf(hung)).toMatch(/did not finish within 1\.5 s/);
    expect(took).toBeGreaterThanOrEqual(TOOL_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TOOL_TIMEOUT_MS + 3_000);

    started = Date.now();
    const stateless = await statelessCall(FIXTURES, "test_hang", {}, false);
    expect(stateless.status).toBe(200);
    expect((stateless.body.result as Json).isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(TOOL_TIMEOUT_MS + 3_000);

    const list = ((await callTool(FIXTURES, s.headers, "test_cancellations")).structuredContent as { cancelled: Json[] }).cancelled;
    expect(list.filter((c) => /did not finish/.test(String(c.reason))).length).toBeGreaterThanOrEqual(2);
  });
});
