import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";

/**
 * Issue 19: the benchmark's bare routes (/api/ceiling, /api/ceiling/read-body, and issue 22's
 * /api/ceiling/tools-page and /api/ceiling/stream) are not part of the product. Without MCP_BENCH_ROUTES=1 they answer 404
 * like any missing route; with it (bench/run.mjs sets it) they read at most MCP_MAX_BODY_BYTES, like
 * /api/mcp (413 beyond).
 */
const ROUTES = ["/api/ceiling", "/api/ceiling/read-body", "/api/ceiling/tools-page", "/api/ceiling/stream"];

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
    bench = await startNextServer({ env: { MCP_BENCH_ROUTES: "1", MCP_MAX_BODY_BYTES: "4096", MCP_RATE_LIMITS: "0", BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef", DATABASE_URL: inject("databaseUrl") }, readyPath: "/api/mcp" });
  }, 90_000);
  afterAll(async () => {
    await bench?.stop();
  });

  it("the ceiling answers its fixed JSON", async () => {
    const r = await fetch(`${bench.url}/api/ceiling`, { method: "POST", body: "{}" });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
  });

  it("read-body reads a body within MCP_MAX_BODY_BYTES and refuses a larger one with 413, declared or chunked", async () => {
    const url = `${bench.url}/api/ceiling/read-body`;
    expect((await fetch(url, { method: "POST", body: "x".repeat(4096) })).status).toBe(200);
    expect((await fetch(url, { method: "POST", body: "x".repeat(4097) })).status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i += 1) controller.enqueue(new Uint8Array(1024).fill(120));
        controller.close();
      },
    });
    const r = await fetch(url, { method: "POST", body: chunked, duplex: "half" } as RequestInit);
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
});
