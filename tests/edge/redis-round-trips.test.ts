import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { JSON_AND_SSE, statelessHeaders } from "../support/mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { initialize, postMessage, uniqueId, type SessionRef } from "../support/raw-sessions";
import { startRedisProcess, type RedisProcess } from "../support/redis-process";

/**
 * Issue 22, with Redis: sessions, rate limits and the cluster bus in one Redis (REDIS_URL,
 * MCP_RATE_LIMITS=1). A 2025-11-25 request in a session reads its session and spends its budget
 * in ONE round trip (one pipelined write on one connection), and a tools/call publishes no tool
 * event while no GET stream of its audience is open anywhere; a 2026-07-28 request makes the
 * limiter's trip only; an initialize makes two. The server runs on a redis-server of this file's own, so every command
 * counted is this server's: MONITOR names them, and INFO's total_reads_processed counts the reads
 * Redis made for them — one per round trip (a pipeline arrives in one read).
 */
const REQUESTS = 10;

let redisServer: RedisProcess;
let server: RunningNextServer;
let monitor: Socket;
let info: Redis;
let session: SessionRef;
let token: string;
const seen: { name: string; source: string }[] = [];

beforeAll(async () => {
  redisServer = await startRedisProcess();
  const port = await freePort();
  server = await startNextServer({
    port,
    env: {
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: redisServer.url,
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_AUTH_KEYS_DIR: inject("devIssuerDir"),
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      MCP_RATE_LIMITS: "1",
      // Budgets far above what the test spends: every check is allowed (and still an EVALSHA).
      MCP_RATE_LIMIT_TOOLS_LIST: "1000",
      MCP_RATE_LIMIT_TOOLS_CALL: "1000",
      MCP_TRUSTED_PROXIES: "",
    },
  });
  token = await tokenFor(server.url, newSubject("trips"));
  session = await initialize(`${server.url}/api/mcp`, { token });
  // An instance that just joined the bus cannot know who listens elsewhere and publishes tool
  // events for its first second (lib/mcp/cluster/audience-presence.ts): past that, it knows.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  monitor = await watch(redisServer.port);
  info = new Redis(redisServer.url);
}, 120_000);

afterAll(async () => {
  monitor?.destroy();
  info?.disconnect();
  await server?.stop();
  await redisServer?.stop();
});

/** MONITOR over a raw connection: each line is `+<time> [<db> <client or lua>] "<command>" …`. */
async function watch(port: number): Promise<Socket> {
  const socket = connect({ host: "127.0.0.1", port });
  await once(socket, "connect");
  socket.write("MONITOR\r\n");
  let buffer = "";
  socket.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    const lines = buffer.split("\r\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
      if (match) seen.push({ name: (match[2] as string).toUpperCase(), source: match[1] as string });
    }
  });
  return socket;
}

const readsProcessed = async () => Number(/total_reads_processed:(\d+)/.exec(await info.info("stats"))?.[1]);
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

/** Runs `send` REQUESTS times after a warm-up: the commands sent outside Lua by name, and reads per request. */
async function count(send: () => Promise<void>): Promise<{ byName: Record<string, number>; readsPerRequest: number }> {
  for (let i = 0; i < 3; i++) await send(); // first-use work (loading the limiter's scripts) is not per request
  await settle();
  seen.length = 0;
  const before = await readsProcessed();
  for (let i = 0; i < REQUESTS; i++) await send();
  await settle();
  // The INFO that reads the counter is a read of its own; so is each PING the subscriber's liveness
  // timer sent meanwhile (lib/cluster/connection-watchdog.ts: one per MCP_CLUSTER_TIMEOUT_MS, not
  // per request).
  const pings = seen.filter((c) => c.name === "PING").length;
  const reads = (await readsProcessed()) - before - 1 - pings;
  const byName: Record<string, number> = {};
  // Lua's own commands, this test's INFO and the liveness PINGs are not the requests'.
  for (const c of seen) if (c.source !== "lua" && c.name !== "INFO" && c.name !== "PING") byName[c.name] = (byName[c.name] ?? 0) + 1;
  return { byName, readsPerRequest: reads / REQUESTS };
}

const sessionPost = async (method: string, params: Record<string, unknown>) => {
  const reply = await postMessage(`${server.url}/api/mcp`, session.headers, { jsonrpc: "2.0", id: uniqueId(method), method, params });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.response?.error).toBeUndefined();
};

describe("Redis round trips per request (sessions, limits and the bus in one Redis)", () => {
  it("2025-11-25 tools/call in a session: the session GET and the limiter's EVALSHA in one round trip, no PUBLISH", async () => {
    const { byName, readsPerRequest } = await count(() => sessionPost("tools/call", { name: "suggest_names", arguments: { style: "elvish", count: 3 } }));
    expect(byName).toEqual({ GET: REQUESTS, EVALSHA: REQUESTS });
    expect(readsPerRequest).toBe(1);
  });

  it("2025-11-25 tools/list in a session: one round trip", async () => {
    const { byName, readsPerRequest } = await count(() => sessionPost("tools/list", {}));
    expect(byName).toEqual({ GET: REQUESTS, EVALSHA: REQUESTS });
    expect(readsPerRequest).toBe(1);
  });

  it("2025-11-25 initialize (a new session): two round trips — its budget, then the session and its place in the caller's list in one transaction that hands back what it trimmed", async () => {
    const { byName, readsPerRequest } = await count(async () => {
      await initialize(`${server.url}/api/mcp`, { token });
    });
    // No eviction here (a caller keeps 50 sessions, this one opens 14), so no DEL.
    expect(byName).toEqual({ EVALSHA: REQUESTS, LRANGE: REQUESTS, MULTI: REQUESTS, SET: REQUESTS, RPUSH: REQUESTS, LTRIM: REQUESTS, PEXPIRE: REQUESTS, EXEC: REQUESTS });
    expect(readsPerRequest).toBe(2);
  });

  it("2026-07-28 tools/call: the limiter's round trip only", async () => {
    const params = {
      name: "suggest_names",
      arguments: { style: "elvish", count: 3 },
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
    };
    const { byName, readsPerRequest } = await count(async () => {
      const res = await fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: { ...statelessHeaders("2026-07-28", "tools/call", params), accept: JSON_AND_SSE, authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: uniqueId("call"), method: "tools/call", params }),
      });
      expect(res.status, await res.text()).toBe(200);
    });
    expect(byName).toEqual({ EVALSHA: REQUESTS });
    expect(readsPerRequest).toBe(1);
  });
});
