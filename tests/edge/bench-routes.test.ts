import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";

/**
 * Issue 19: the benchmark's bare routes (/api/ceiling, /api/ceiling/read-body) are not part of the
 * product. Without MCP_BENCH_ROUTES=1 they answer 404 like any missing route; with it (bench/run.mjs
 * sets it) they read at most MCP_MAX_BODY_BYTES, like /api/mcp (413 beyond).
 */
const ROUTES = ["/api/ceiling", "/api/ceiling/read-body"];

describe("without MCP_BENCH_ROUTES", () => {
  it("both routes answer 404, whatever the body", async () => {
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
});
