import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEV_SUBJECT } from "../../lib/authorization-server/key-file";
import { newSubject, tokenFor } from "../support/auth";
import { eraClient, toolResult } from "../support/both-eras";
import { postHeldOpen } from "../support/held-post";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { startRedisProcess, type RedisProcess } from "../support/redis-process";
import { clearOfWindowTurn } from "../support/window-turn";

/**
 * Issue 19: the benchmark's bare routes (/api/ceiling, /api/ceiling/read-body, and issue 22's
 * /api/ceiling/tools-page, /api/ceiling/stream, /api/ceiling/statement and /api/ceiling/limiter)
 * are not part of the product. Without MCP_BENCH_ROUTES=1 they answer 404 like any missing route;
 * with it (bench/run.mjs sets it) they read at most MCP_MAX_BODY_BYTES, like /api/mcp (413 beyond).
 */
const ROUTES = ["/api/ceiling", "/api/ceiling/read-body", "/api/ceiling/tools-page", "/api/ceiling/stream", "/api/ceiling/statement", "/api/ceiling/limiter"];
const SECRET = "test-only-better-auth-secret-0123456789abcdef";
const FIXED = { jsonrpc: "2.0", id: 1, result: { ok: true } };

/** A world of `subject`, written through the product (the stateful server shares the bench servers' database); its id. */
async function createWorldAs(subject: string, name: string): Promise<string> {
  const url = inject("statefulUrl");
  const client = await eraClient(`${url}/api/mcp`, "2026-07-28", await tokenFor(url, subject));
  const { message } = await client.request("tools/call", { name: "create_world", arguments: { name, theme: "fantasy" } });
  const world = toolResult(message)?.structuredContent?.world as { id?: unknown } | undefined;
  if (typeof world?.id !== "string") throw new Error(`create_world answered ${JSON.stringify(message)}`);
  return world.id;
}

describe("without MCP_BENCH_ROUTES", () => {
  it("every route answers 404, whatever the body", async () => {
    for (const route of ROUTES) {
      const r = await fetch(`${inject("statefulUrl")}${route}`, { method: "POST", body: "x".repeat(64 * 1024) });
      expect(r.status, route).toBe(404);
    }
  });
});

describe("with MCP_BENCH_ROUTES=1", () => {
  let bench: RunningNextServer;
  beforeAll(async () => {
    bench = await startNextServer({ env: { MCP_BENCH_ROUTES: "1", MCP_MAX_BODY_BYTES: "4096", MCP_RATE_LIMITS: "0", BETTER_AUTH_SECRET: SECRET, DATABASE_URL: inject("databaseUrl") }, readyPath: "/api/mcp" });
  }, 90_000);
  afterAll(async () => {
    await bench?.stop();
  });

  it("the ceiling answers its fixed JSON", async () => {
    const r = await fetch(`${bench.url}/api/ceiling`, { method: "POST", body: "{}" });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(FIXED);
  });

  it("read-body reads a body within MCP_MAX_BODY_BYTES and refuses a larger one with 413, declared or chunked", async () => {
    const url = `${bench.url}/api/ceiling/read-body`;
    expect((await fetch(url, { method: "POST", body: "x".repeat(4096) })).status).toBe(200);
    expect((await fetch(url, { method: "POST", body: "x".repeat(4097) })).status).toBe(413);
    // Held open past the limit, on a raw request: fetch may see the refused body's connection
    // closed before it reads the 413 ("fetch failed", seen in CI).
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(1024, 120));
    const r = await postHeldOpen(url, { "transfer-encoding": "chunked" }, chunks);
    expect(r.status).toBe(413);
  });

  it("tools-page answers the exact bytes and content type of an anonymous 2026-07-28 tools/list page, after reading the body", async () => {
    const version = "2026-07-28";
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} } } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": version, "mcp-method": "tools/list" };
    const page = await fetch(`${bench.url}/api/mcp`, { method: "POST", headers, body });
    expect(page.status).toBe(200);
    const floor = await fetch(`${bench.url}/api/ceiling/tools-page`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(floor.status).toBe(200);
    expect(floor.headers.get("content-type")).toBe(page.headers.get("content-type"));
    const [expected, replayed] = [Buffer.from(await page.arrayBuffer()), Buffer.from(await floor.arrayBuffer())];
    expect(replayed.length).toBeGreaterThan(1000);
    expect(replayed.equals(expected)).toBe(true);
    // Replayed, not rebuilt: the same bytes again, and the body limit holds as on read-body.
    expect(Buffer.from(await (await fetch(`${bench.url}/api/ceiling/tools-page`, { method: "POST", body: "{}" })).arrayBuffer()).equals(expected)).toBe(true);
    expect((await fetch(`${bench.url}/api/ceiling/tools-page`, { method: "POST", body: "x".repeat(4097) })).status).toBe(413);
  });

  it("stream reads the body within the limit, answers SSE with a first keep-alive at once, and stays open until the client leaves", async () => {
    const leave = new AbortController();
    const r = await fetch(`${bench.url}/api/ceiling/stream`, { method: "POST", body: "{}", signal: leave.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    const reader = r.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(new TextDecoder().decode(first.value)).toBe(": ping\n\n");
    // Still open: nothing more within a short wait (the next ping is MCP_SSE_PING_MS away), no end.
    const pending = await Promise.race([reader.read().then(() => "read"), new Promise((resolve) => setTimeout(() => resolve("open"), 300))]);
    expect(pending).toBe("open");
    leave.abort();
    expect((await fetch(`${bench.url}/api/ceiling/stream`, { method: "POST", body: "x".repeat(4097) })).status).toBe(413);
    // The server still answers after a client left mid-stream.
    expect((await fetch(`${bench.url}/api/ceiling`, { method: "POST", body: "{}" })).status).toBe(200);
  });

  it("statement answers get_world's world card of the development subject's world named by X-Bench-World, after reading the body within the limit", async () => {
    const [mine, theirs] = await Promise.all([createWorldAs(DEV_SUBJECT, "Statement Floor"), createWorldAs(newSubject("floor"), "Not the Developer's")]);
    const url = `${bench.url}/api/ceiling/statement`;
    const r = await fetch(url, { method: "POST", headers: { "x-bench-world": mine }, body: "x".repeat(4096) });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.json()).toMatchObject({ id: mine, ownerSubject: DEV_SUBJECT, name: "Statement Floor", theme: "fantasy", _count: { characters: 0, locations: 0 }, characters: [], locations: [] });
    // The statement filters by owner, as get_world does: another subject's world is not there.
    expect((await fetch(url, { method: "POST", headers: { "x-bench-world": theirs }, body: "{}" })).status).toBe(404);
    expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(url, { method: "POST", headers: { "x-bench-world": mine }, body: "x".repeat(4097) })).status).toBe(413);
  });

  it("limiter is not served where rate limits are off: a floor that spends nothing would be ceiling+body under another name", async () => {
    expect((await fetch(`${bench.url}/api/ceiling/limiter`, { method: "POST", body: "{}" })).status).toBe(404);
  });
});

describe("the limiter floor on servers with rate limits on (MCP_BENCH_ROUTES=1)", () => {
  let redisServer: RedisProcess;
  /** In process, and in a redis-server of this file's own; two tools/call a window. */
  const limited: { label: string; server: RunningNextServer }[] = [];
  beforeAll(async () => {
    redisServer = await startRedisProcess();
    const env = {
      MCP_BENCH_ROUTES: "1",
      MCP_MAX_BODY_BYTES: "4096",
      BETTER_AUTH_SECRET: SECRET,
      DATABASE_URL: inject("databaseUrl"),
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
      MCP_RATE_LIMITS: "1",
      MCP_RATE_LIMIT_TOOLS_CALL: "2",
      MCP_RATE_LIMIT_FAILURE: "closed",
    };
    const [memory, redis] = await Promise.all([startNextServer({ env: { ...env, REDIS_URL: "" } }), startNextServer({ env: { ...env, REDIS_URL: redisServer.url } })]);
    limited.push({ label: "in process", server: memory }, { label: "in Redis", server: redis });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(limited.map((l) => l.server.stop()));
    await redisServer?.stop();
  });

  it("limiter spends a tools/call budget per request, in process and in Redis, after reading the body within the limit", async () => {
    // Counted exactly: clear of the 60 s window's turn (tests/support/window-turn.ts).
    await clearOfWindowTurn(60_000, 5_000);
    for (const { label, server } of limited) {
      const url = `${server.url}/api/ceiling/limiter`;
      // Refused before the limiter: spends nothing.
      expect((await fetch(url, { method: "POST", body: "x".repeat(4097) })).status, label).toBe(413);
      for (let i = 0; i < 2; i += 1) {
        const r = await fetch(url, { method: "POST", body: "x".repeat(4096) });
        expect(r.status, label).toBe(200);
        expect(await r.json(), label).toEqual(FIXED);
      }
      // The budget of two is spent: the third is refused as the endpoint refuses (429, Retry-After).
      const refused = await fetch(url, { method: "POST", body: "{}" });
      expect(refused.status, label).toBe(429);
      expect(Number(refused.headers.get("retry-after")), label).toBeGreaterThan(0);
    }
  });
});
