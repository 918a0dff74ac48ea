import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentKeyRow, signAccessToken } from "../../lib/authorization-server/key-file";
import { addressIdentity } from "../../lib/http/address-identity.mjs";
import { Scope } from "../../lib/worlds/scopes";
import { JSON_AND_SSE, sseMessages } from "../support/mcp-http";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { startRedisProcess, type RedisProcess } from "../support/redis-process";
import { SseReader, messageOf, sleep, waitFor } from "../support/sdk-client";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { startUpstashRestFront, type UpstashRestFront } from "../support/upstash-rest-front";

/**
 * What this file proves: the rate limits hold across instances when their counters live in real
 * Redis, on production builds (`next start`) this file starts with its own configuration.
 *
 * 1. Two servers sharing one Redis (REDIS_URL, ioredis) spend ONE budget per caller between them:
 *    of 20 tools/call alternating between them exactly the configured 7 pass (also when fired all
 *    at once), the rest are 429 with Retry-After, RateLimit-* and a -32000 body with
 *    data.retryAfter; successful answers count RateLimit-Remaining down. tools/list has a budget of
 *    its own, a per-tool budget (MCP_RATE_LIMIT_TOOLS) stops that tool earlier, anonymous callers
 *    reading a world's export (resources/read) spends export_world's budgets in both eras, anonymous callers
 *    are keyed by the client address a trusted proxy forwards (an IPv6 one by its /64; never by a
 *    hint), and in a 2025-03-26 JSON-RPC batch the budget running out refuses single messages
 *    inside an HTTP 200.
 * 2. The cap on open streams (MCP_MAX_STREAMS_PER_CALLER=5) holds across both servers for
 *    2026-07-28 subscriptions/listen streams, and closing a stream frees its slot.
 * 3. With a Redis this file starts and stops itself: MCP_RATE_LIMIT_FAILURE=closed answers 503 with
 *    Retry-After while the store is gone, =open keeps serving, and both count again once the
 *    same Redis is back on the same port.
 * 4. The @upstash/redis path (UPSTASH_REDIS_REST_URL/TOKEN), against a stand-in of Upstash's REST
 *    API in front of the real Redis (tests/support/upstash-rest-front.ts), enforces the budget
 *    exactly and the stream cap too.
 *
 * Every caller is unique to the run (counters are `mcp:rl:<budget>:<caller>:<window>` and
 * `mcp:streams:<caller>` in the shared Redis), so reruns and parallel files never collide; the
 * keys this run made are deleted at the end. A one-day window keeps the counts exact: a sliding
 * window carries a weighted part of the previous window's count, so a run that crossed a window
 * boundary could see one request more pass; with windows of a day that needs a run at midnight UTC.
 */

const V = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The longest window the configuration allows: a run never comes near a window boundary (see above). */
const WINDOW_MS = 86_400_000;
const TOOLS_CALL_LIMIT = 7;
const TOOLS_LIST_LIMIT = 4;
const SUGGEST_NAMES_LIMIT = 3;
const MAX_STREAMS = 5;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Identifies this run in every subject, hint and address it uses. */
const RUN = randomBytes(4).toString("hex");
/** Every caller key this run spent from (for the clean-up of the shared Redis). */
const callers = new Set<string>();

function subject(name: string): string {
  const sub = `rl-${RUN}-${name}`;
  callers.add(`sub:${sub}`);
  return sub;
}

function hint(name: string): string {
  const h = `rl-${RUN}-${name}`;
  callers.add(`hint:${h}`);
  return h;
}

/**
 * A documentation-prefix IPv6 address unique to this run (RFC 3849): client `n`'s own /64, host
 * `host` in it. Anonymous callers are keyed by their /64 (lib/http/address-identity.mjs).
 */
function address(n: number, host = 1): string {
  const ip = `2001:db8:${RUN.slice(0, 4)}:${RUN.slice(4, 7)}${n.toString(16)}::${host.toString(16)}`;
  callers.add(`ip:${addressIdentity(ip)}`);
  return ip;
}

// ── Processes ────────────────────────────────────────────────────────────────────────────────

let devIssuerDir = "";
let database: TestSchema | undefined;
let spare: RedisProcess | undefined;
let front: UpstashRestFront | undefined;
let inspect: Redis | undefined;
const started: RunningNextServer[] = [];

/** Two instances of one deployment on the shared Redis. */
let serverA: RunningNextServer;
let serverB: RunningNextServer;
/** On the Redis this file stops and restarts: one fails closed, one fails open. */
let failClosed: RunningNextServer;
let failOpen: RunningNextServer;
/** On the Upstash REST stand-in. */
let viaUpstash: RunningNextServer;
/** Another deployment on the shared Redis under its own MCP_CLUSTER_PREFIX ("staging"). */
let staging: RunningNextServer;
const STAGING_PREFIX = `staging-${RUN}`;

/** What every server shares; the store and failure policy differ per server. */
function commonEnv(): Record<string, string> {
  return {
    DATABASE_URL: database?.url ?? "",
    MCP_AUTH_MODE: "mixed",
    BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
    MCP_AUTH_KEYS_DIR: devIssuerDir,
    MCP_REQUEST_STATE_SECRET: "rate-limit-test-request-state-secret-0123456789",
    MCP_RATE_LIMITS: "1",
    MCP_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_MS / 1000),
    MCP_RATE_LIMIT_TOOLS_CALL: String(TOOLS_CALL_LIMIT),
    MCP_RATE_LIMIT_TOOLS_LIST: String(TOOLS_LIST_LIMIT),
    MCP_RATE_LIMIT_OTHER: "120",
    MCP_RATE_LIMIT_TOOLS: `suggest_names=${SUGGEST_NAMES_LIMIT}`,
    MCP_MAX_STREAMS_PER_CALLER: String(MAX_STREAMS),
    MCP_RATE_LIMIT_FAILURE: "open",
    MCP_RATE_LIMIT_TIMEOUT_MS: "1000",
    // The test clients stand behind a "proxy" at the loopback: their X-Forwarded-For is believed.
    MCP_TRUSTED_PROXIES: "127.0.0.1,::1",
    // Empty is unset (lib/config/env.ts): nothing from the outer environment picks the store.
    REDIS_URL: "",
    UPSTASH_REDIS_REST_URL: "",
    UPSTASH_REDIS_REST_TOKEN: "",
  };
}

/** `next start` on its own port, which is also its resource URL (the tokens' audience). */
async function startServer(env: Record<string, string>): Promise<RunningNextServer> {
  const port = await freePort();
  const server = await startNextServer({ port, env: { ...commonEnv(), ...env, MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp` } });
  started.push(server);
  return server;
}

/** Waits for every start, then fails with the first error: nothing is left starting behind the clean-up. */
async function settleAll<T>(starts: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

beforeAll(async () => {
  devIssuerDir = mkdtempSync(join(tmpdir(), "wc-rl-issuer-"));
  // Made before the servers start, so all five trust the same key.
  await currentKeyRow(devIssuerDir);
  inspect = new Redis(SHARED_REDIS_URL, { maxRetriesPerRequest: 1 });
  // Each handle is kept as soon as it exists, so afterAll cleans up whatever did start.
  await settleAll<unknown>([
    migratedTestSchema("wc_ratelimit").then((d) => (database = d)),
    startRedisProcess().then((r) => (spare = r)),
    startUpstashRestFront({ redisUrl: SHARED_REDIS_URL, token: `upstash-token-${RUN}` }).then((f) => (front = f)),
  ]);
  if (!spare || !front) throw new Error("the stores did not start");
  const store = { REDIS_URL: SHARED_REDIS_URL };
  // A short store timeout, so a missing Redis is noticed quickly by the failure-policy servers.
  const spareStore = { REDIS_URL: spare.url, MCP_RATE_LIMIT_TIMEOUT_MS: "300" };
  const servers = await settleAll([
    startServer(store),
    startServer(store),
    startServer({ ...spareStore, MCP_RATE_LIMIT_FAILURE: "closed" }),
    startServer({ ...spareStore, MCP_RATE_LIMIT_FAILURE: "open" }),
    startServer({ UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: front.token }),
    startServer({ ...store, MCP_CLUSTER_PREFIX: STAGING_PREFIX }),
  ]);
  [serverA, serverB, failClosed, failOpen, viaUpstash, staging] = servers as [RunningNextServer, RunningNextServer, RunningNextServer, RunningNextServer, RunningNextServer, RunningNextServer];
}, 90_000);

afterAll(async () => {
  await Promise.allSettled(started.map((s) => s.stop()));
  await Promise.allSettled([front?.close(), spare?.stop()]);
  if (inspect) {
    // This run's counters and stream sets in the shared Redis (they would expire on their own).
    for (const caller of callers) {
      for (const pattern of [`mcp:rl:*:${caller}:*`, `mcp:streams:${caller}`, `${STAGING_PREFIX}:rl:*:${caller}:*`, `${STAGING_PREFIX}:streams:${caller}`]) {
        const keys = await scanKeys(inspect, pattern);
        if (keys.length > 0) await inspect.del(...keys);
      }
    }
    inspect.disconnect();
  }
  await database?.drop();
  if (devIssuerDir) rmSync(devIssuerDir, { recursive: true, force: true });
}, 60_000);

async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found;
}

// ── Requests ─────────────────────────────────────────────────────────────────────────────────

const tokens = new Map<string, Promise<string>>();

/** A development-issuer token for `server` (its origin issues, its /api/mcp is the audience). */
function tokenFor(server: RunningNextServer, sub: string): Promise<string> {
  const key = `${server.url} ${sub}`;
  let token = tokens.get(key);
  if (!token) {
    token = signAccessToken(devIssuerDir, { issuer: server.url, audience: `${server.url}/api/mcp`, subject: sub, scopes: [Scope.Read, Scope.Write] });
    tokens.set(key, token);
  }
  return token;
}

interface Caller {
  /** A token subject (each server gets its own token for it). */
  sub?: string;
  /** Anonymous: `_meta["openai/subject"]`. */
  hint?: string;
  /** Anonymous: the X-Forwarded-For header as sent. */
  forwardedFor?: string;
}

interface Reply {
  status: number;
  headers: Headers;
  /** The JSON-RPC answer (JSON body, or the response message of an SSE body). */
  body: Json;
}

let nextId = 1;

/** The headers of a 2026-07-28 request (MCP-Protocol-Version, Mcp-Method, Mcp-Name) plus the caller's. */
async function requestHeaders(server: RunningNextServer, method: string, caller: Caller, name?: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: JSON_AND_SSE, "mcp-protocol-version": V, "mcp-method": method };
  if (name) headers["mcp-name"] = name;
  if (caller.sub) headers.authorization = `Bearer ${await tokenFor(server, caller.sub)}`;
  if (caller.forwardedFor) headers["x-forwarded-for"] = caller.forwardedFor;
  return headers;
}

function requestBody(method: string, params: Json, caller: Caller): Json {
  const _meta = caller.hint ? { ...META, "openai/subject": caller.hint } : META;
  return { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta } };
}

async function rpc(server: RunningNextServer, method: string, params: Json, caller: Caller): Promise<Reply> {
  const body = requestBody(method, params, caller);
  const target = method === "tools/call" ? params.name : method === "resources/read" ? params.uri : undefined;
  const name = typeof target === "string" ? target : undefined;
  const res = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: await requestHeaders(server, method, caller, name),
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  const messages: unknown[] = sse ? sseMessages(text) : [text ? (JSON.parse(text) as unknown) : undefined];
  const answer = messages.find((m): m is Json => isRecord(m) && m.id === body.id);
  if (!answer) throw new Error(`${method} on ${server.url}: no answer for id ${String(body.id)} (HTTP ${res.status}): ${text.slice(0, 300)}`);
  return { status: res.status, headers: res.headers, body: answer };
}

/** list_worlds: needs a token, and only the tools/call budget applies to it. */
const listWorlds = (server: RunningNextServer, caller: Caller) => rpc(server, "tools/call", { name: "list_worlds", arguments: { limit: 1 } }, caller);
/** suggest_names: open to anonymous callers; has a per-tool budget on top of tools/call's. */
const suggestNames = (server: RunningNextServer, caller: Caller) =>
  rpc(server, "tools/call", { name: "suggest_names", arguments: { style: "elvish", kind: "place", count: 2 } }, caller);
const listTools = (server: RunningNextServer, caller: Caller) => rpc(server, "tools/list", {}, caller);

function headerInt(reply: Reply, name: string): number {
  const value = reply.headers.get(name);
  expect(value, `${name} header`).toMatch(/^\d+$/);
  return Number(value);
}

/** A request that ran: 200, a result (not an error) and the budget it spent in RateLimit-*. */
function expectServed(reply: Reply, limit: number, remaining?: number): void {
  expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(200);
  expect(reply.body.error).toBeUndefined();
  expect(isRecord(reply.body.result)).toBe(true);
  expect(headerInt(reply, "ratelimit-limit")).toBe(limit);
  if (remaining !== undefined) expect(headerInt(reply, "ratelimit-remaining")).toBe(remaining);
  const reset = headerInt(reply, "ratelimit-reset");
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
}

/** Seed 001's refusal: 429, Retry-After > 0, RateLimit-*, JSON-RPC -32000 with data.retryAfter. */
function expectLimited(reply: Reply, limit: number): void {
  expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(429);
  const retryAfter = headerInt(reply, "retry-after");
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
  expect(headerInt(reply, "ratelimit-limit")).toBe(limit);
  expect(headerInt(reply, "ratelimit-remaining")).toBe(0);
  expect(headerInt(reply, "ratelimit-reset")).toBeGreaterThan(0);
  expect(reply.body.result).toBeUndefined();
  const error = reply.body.error;
  if (!isRecord(error)) throw new Error(`no JSON-RPC error in ${JSON.stringify(reply.body)}`);
  expect(error.code).toBe(-32000);
  expect(error.message).toBe("Rate limit exceeded");
  expect(isRecord(error.data) && error.data.retryAfter).toBe(retryAfter);
}

/** The tools/call counter this run's `sub` has in the shared Redis for the current window. */
async function storedToolsCallCount(sub: string): Promise<string | null> {
  if (!inspect) throw new Error("no Redis client");
  return inspect.get(`mcp:rl:tools-call:sub:${sub}:${Math.floor(Date.now() / WINDOW_MS)}`);
}

// ── Streams ──────────────────────────────────────────────────────────────────────────────────

interface ListenAttempt {
  status: number;
  headers: Headers;
  /** The refusal's JSON body (when not 200). */
  body?: Json;
  /** Ends the stream as a client does: stop reading and drop the connection. */
  close(): Promise<void>;
}

/** A 2026-07-28 subscriptions/listen POST; when it opens, its acknowledgement has been read. */
async function listen(server: RunningNextServer, caller: Caller): Promise<ListenAttempt> {
  const params = { notifications: { toolsListChanged: true } };
  const body = requestBody("subscriptions/listen", params, caller);
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: await requestHeaders(server, "subscriptions/listen", caller),
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {}, close: async () => controller.abort() };
  }
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const reader = new SseReader(res.body);
  // The first event proves the stream is really open (and its slot held) on the server.
  const ack = await reader.next(5_000);
  expect(ack && messageOf(ack)?.method).toBe("notifications/subscriptions/acknowledged");
  return {
    status: res.status,
    headers: res.headers,
    async close() {
      await reader.cancel();
      controller.abort();
    },
  };
}

function expectTooManyStreams(attempt: ListenAttempt): void {
  expect(attempt.status).toBe(429);
  expect(Number(attempt.headers.get("retry-after"))).toBeGreaterThan(0);
  const error = attempt.body?.error;
  if (!isRecord(error)) throw new Error(`no JSON-RPC error in ${JSON.stringify(attempt.body)}`);
  expect(error.code).toBe(-32000);
  expect(error.message).toBe("Rate limit exceeded");
  expect(isRecord(error.data) && typeof error.data.retryAfter === "number" && error.data.retryAfter > 0).toBe(true);
}

/** Opens a listen on `server` until one is granted (a slot freed elsewhere may take a moment). */
async function listenWhenFree(server: RunningNextServer, caller: Caller, timeoutMs = 5_000): Promise<ListenAttempt | undefined> {
  return waitFor(
    async () => {
      const attempt = await listen(server, caller);
      if (attempt.status === 200) return attempt;
      expectTooManyStreams(attempt);
      return undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** The open-stream count a caller has in the shared Redis, once it settles at `expected`. */
async function streamSetSettles(caller: string, expected: number): Promise<number> {
  if (!inspect) throw new Error("no Redis client");
  const redis = inspect;
  const settled = await waitFor(async () => ((await redis.zcard(`mcp:streams:${caller}`)) === expected ? expected : undefined), { timeoutMs: 5_000 });
  return settled ?? (await redis.zcard(`mcp:streams:${caller}`));
}

/** The stream-cap scenario on `servers` (round robin): the cap holds across them, a close frees a slot. */
async function proveStreamCap(servers: readonly RunningNextServer[], sub: string): Promise<void> {
  const caller = { sub };
  const open: ListenAttempt[] = [];
  try {
    for (let i = 0; i < MAX_STREAMS; i++) {
      const attempt = await listen(servers[i % servers.length] as RunningNextServer, caller);
      expect(attempt.status, `stream ${i + 1} of ${MAX_STREAMS}`).toBe(200);
      open.push(attempt);
    }
    expect(await streamSetSettles(`sub:${sub}`, MAX_STREAMS)).toBe(MAX_STREAMS);
    // The next one is refused on every instance: the count is shared, not per process.
    for (const server of servers) {
      const refused = await listen(server, caller);
      expectTooManyStreams(refused);
    }
    // Closing one (on the first server) frees a slot the last server can take.
    await open.shift()?.close();
    const reopened = await listenWhenFree(servers[servers.length - 1] as RunningNextServer, caller);
    expect(reopened?.status, "a stream opens again once one was closed").toBe(200);
    if (reopened) open.push(reopened);
    expectTooManyStreams(await listen(servers[0] as RunningNextServer, caller));
  } finally {
    await Promise.all(open.map((s) => s.close()));
  }
  // Every closed stream gave its slot back.
  expect(await streamSetSettles(`sub:${sub}`, 0)).toBe(0);
}

// ── 1. One budget across two instances on one Redis ──────────────────────────────────────────

describe("budgets shared by two instances through REDIS_URL", () => {
  it("allows exactly the configured tools/call budget between them, counting RateLimit-Remaining down", async () => {
    const sub = subject("shared");
    const replies: Reply[] = [];
    // One after another, alternating: the order is deterministic, so the first 7 are the ones served.
    for (let i = 0; i < 20; i++) replies.push(await listWorlds(i % 2 === 0 ? serverA : serverB, { sub }));
    const served = replies.filter((r) => r.status === 200);
    expect(served).toHaveLength(TOOLS_CALL_LIMIT);
    replies.slice(0, TOOLS_CALL_LIMIT).forEach((reply, i) => expectServed(reply, TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1 - i));
    for (const reply of replies.slice(TOOLS_CALL_LIMIT)) expectLimited(reply, TOOLS_CALL_LIMIT);
    // Each instance served fewer than 7 and then refused: alone, either would have allowed 7.
    const servedBy = (parity: number) => replies.filter((r, i) => i % 2 === parity && r.status === 200).length;
    expect([servedBy(0), servedBy(1)]).toEqual([4, 3]);
    // The counter is in Redis, and refused requests did not add to it.
    expect(await storedToolsCallCount(sub)).toBe(String(TOOLS_CALL_LIMIT));

    // tools/list has a budget of its own: the exhausted tools/call budget does not touch it.
    expectServed(await listTools(serverB, { sub }), TOOLS_LIST_LIMIT, TOOLS_LIST_LIMIT - 1);
  });

  it("holds exactly when the calls arrive at both instances at once", async () => {
    const sub = subject("burst");
    // Tokens first, so the 20 requests leave together.
    await Promise.all([tokenFor(serverA, sub), tokenFor(serverB, sub)]);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => listWorlds(i % 2 === 0 ? serverA : serverB, { sub })));
    const served = replies.filter((r) => r.status === 200);
    expect(served).toHaveLength(TOOLS_CALL_LIMIT);
    for (const reply of served) expectServed(reply, TOOLS_CALL_LIMIT);
    // Each success saw a different count: the remaining values are 6..0, each once.
    expect(served.map((r) => headerInt(r, "ratelimit-remaining")).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const reply of replies.filter((r) => r.status !== 200)) expectLimited(reply, TOOLS_CALL_LIMIT);
    expect(await storedToolsCallCount(sub)).toBe(String(TOOLS_CALL_LIMIT));
  });

  it("gives tools/list its own budget", async () => {
    const sub = subject("list");
    const replies: Reply[] = [];
    for (let i = 0; i < TOOLS_LIST_LIMIT + 2; i++) replies.push(await listTools(i % 2 === 0 ? serverA : serverB, { sub }));
    replies.slice(0, TOOLS_LIST_LIMIT).forEach((reply, i) => expectServed(reply, TOOLS_LIST_LIMIT, TOOLS_LIST_LIMIT - 1 - i));
    for (const reply of replies.slice(TOOLS_LIST_LIMIT)) expectLimited(reply, TOOLS_LIST_LIMIT);
    // The tools/call budget is untouched by all those lists.
    expectServed(await listWorlds(serverB, { sub }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1);
  });

  // tools/batch is the session era's (2026-07-28 answers it 404: its tools would travel in no Mcp-Name).
  it("counts each call of a tools/batch against the tools/call budget, as if it came alone", async () => {
    const sub = subject("tools-batch");
    const base = { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${await tokenFor(serverA, sub)}` };
    const post = (headers: Record<string, string>, message: Json) => fetch(`${serverA.url}/api/mcp`, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(15_000) });
    const init = await post(base, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "rate-limit-test", version: "1" } } });
    const session = { ...base, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
    expect((await post(session, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const calls = Array.from({ length: TOOLS_CALL_LIMIT + 3 }, () => ({ name: "list_worlds", arguments: { limit: 1 } }));
    const res = await post(session, { jsonrpc: "2.0", id: 1, method: "tools/batch", params: { calls } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    const reply = (sse ? sseMessages(text) : [JSON.parse(text)]).find((m): m is Json => isRecord(m) && m.id === 1);
    const results = ((reply?.result ?? { results: [] }) as { results: Json[] }).results;
    expect(results.filter((r) => "result" in r)).toHaveLength(TOOLS_CALL_LIMIT);
    const refused = results.filter((r) => "error" in r);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.error).toMatchObject({ code: -32000, message: "Rate limit exceeded", data: { retryAfter: expect.any(Number) } });
    // The budget is spent for both instances: B refuses the next single call.
    expectLimited(await listWorlds(serverB, { sub }), TOOLS_CALL_LIMIT);
  });

  it("stops a tool with a budget of its own (MCP_RATE_LIMIT_TOOLS) before the tools/call budget", async () => {
    const sub = subject("per-tool");
    const replies: Reply[] = [];
    for (let i = 0; i < SUGGEST_NAMES_LIMIT + 2; i++) replies.push(await suggestNames(i % 2 === 0 ? serverA : serverB, { sub }));
    // While both budgets allow it, the tighter one (the tool's) is what the headers report.
    replies.slice(0, SUGGEST_NAMES_LIMIT).forEach((reply, i) => expectServed(reply, SUGGEST_NAMES_LIMIT, SUGGEST_NAMES_LIMIT - 1 - i));
    // Refused by the tool's budget, though tools/call's 7 are not used up.
    for (const reply of replies.slice(SUGGEST_NAMES_LIMIT)) expectLimited(reply, SUGGEST_NAMES_LIMIT);
    // Other tools still run for this caller, and the refused calls spent nothing of tools/call:
    // only the served ones count (a client retrying a tight tool cannot drain its whole budget).
    const other = await listWorlds(serverA, { sub });
    expect(other.status).toBe(200);
    expect(headerInt(other, "ratelimit-limit")).toBe(TOOLS_CALL_LIMIT);
    expect(headerInt(other, "ratelimit-remaining")).toBe(TOOLS_CALL_LIMIT - SUGGEST_NAMES_LIMIT - 1);
  });

  // Outside audit: a download link rebuilt its export on every GET with no budget at all.
  it("charges each download of an export link to its owner, as an export_world call (tools/call's budget)", async () => {
    const sub = subject("downloads");
    const made = await rpc(serverA, "tools/call", { name: "create_world", arguments: { name: "Budget Isles", theme: "sea" } }, { sub });
    const worldId = (((made.body.result as Json).structuredContent as Json).world as Json).id as string;
    const exported = await rpc(serverA, "tools/call", { name: "export_world", arguments: { worldId } }, { sub });
    const files = ((exported.body.result as Json).structuredContent as Json).files as Json[];
    const link = (files[0] as Json).download_url as string;
    // Two calls spent; each download spends one more, on whichever instance serves it.
    const statuses: number[] = [];
    for (let i = 0; i < TOOLS_CALL_LIMIT - 2; i++) {
      const res = await fetch(link.replace(serverA.url, i % 2 === 0 ? serverA.url : serverB.url));
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual(Array.from({ length: TOOLS_CALL_LIMIT - 2 }, () => 200));
    const refused = await fetch(link);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("ratelimit-limit")).toBe(String(TOOLS_CALL_LIMIT));
    expect(refused.headers.get("cache-control")).toBe("private, no-store");
    expect(await refused.text()).toMatch(/^Too many exports of this world's owner just now: try the link again in \d+ s\.\n$/);
    // The owner's own calls share that budget.
    expectLimited(await listWorlds(serverB, { sub }), TOOLS_CALL_LIMIT);
  });

  // Outside audit: resources/read of world://…/export.* built the same export on "every other
  // method"'s budget (120 here), the way around export_world's.
  it("charges a resources/read of a world's export as an export_world call, in both eras; other reads keep their own budget", async () => {
    const sub = subject("export-reads");
    const made = await rpc(serverA, "tools/call", { name: "create_world", arguments: { name: "Read Isles", theme: "sea" } }, { sub });
    const worldId = (((made.body.result as Json).structuredContent as Json).world as Json).id as string;
    const exportUri = (format: string) => `world://${worldId}/export.${format}`;
    // One call spent; each export read spends one more, counted down in the tools/call budget's headers.
    for (let i = 0; i < TOOLS_CALL_LIMIT - 2; i++) {
      const read = await rpc(i % 2 === 0 ? serverA : serverB, "resources/read", { uri: exportUri(i % 2 === 0 ? "md" : "json") }, { sub });
      expectServed(read, TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 2 - i);
    }
    // A 2025-era session spends from the same budget: its read takes the last call.
    const token = await tokenFor(serverB, sub);
    const base = { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}` };
    const init = await fetch(`${serverB.url}/api/mcp`, {
      method: "POST",
      headers: base,
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "rate-limit-test", version: "1" } } }),
    });
    expect(init.status).toBe(200);
    await init.text();
    const session = { ...base, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
    const readInSession = (id: number) =>
      fetch(`${serverB.url}/api/mcp`, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri: exportUri("md") } }) });
    const last = await readInSession(1);
    expect(last.status).toBe(200);
    expect(last.headers.get("ratelimit-limit")).toBe(String(TOOLS_CALL_LIMIT));
    expect(last.headers.get("ratelimit-remaining")).toBe("0");
    await last.text();
    const refusedInSession = await readInSession(2);
    expect(refusedInSession.status).toBe(429);
    expect(((await refusedInSession.json()) as Json).error).toMatchObject({ code: -32000, message: "Rate limit exceeded" });
    expectLimited(await rpc(serverA, "resources/read", { uri: exportUri("json") }, { sub }), TOOLS_CALL_LIMIT);
    expectLimited(await listWorlds(serverA, { sub }), TOOLS_CALL_LIMIT);
    // A read that is not an export still spends only the budget every other method shares.
    expectServed(await rpc(serverA, "resources/read", { uri: `world://${worldId}` }, { sub }), 120);
  });

  it("keys anonymous callers by the address a trusted proxy forwards (IPv6: its /64); client hints never choose a budget", async () => {
    // The servers trust the loopback (MCP_TRUSTED_PROXIES): X-Forwarded-For is read from the right,
    // past trusted hops, and the first address that is not a trusted proxy is the client.
    const client = address(2);
    const other = address(3);
    const replies: Reply[] = [];
    // A fresh openai/subject hint per request changes nothing: one address, one budget.
    for (let i = 0; i <= TOOLS_LIST_LIMIT; i++) replies.push(await listTools(i % 2 === 0 ? serverA : serverB, { hint: hint(`fresh-${i}`), forwardedFor: client }));
    replies.slice(0, TOOLS_LIST_LIMIT).forEach((reply, i) => expectServed(reply, TOOLS_LIST_LIMIT, TOOLS_LIST_LIMIT - 1 - i));
    expectLimited(replies[TOOLS_LIST_LIMIT] as Reply, TOOLS_LIST_LIMIT);
    // Entries the client wrote to the left of its own address are its claims, not its identity.
    expectLimited(await listTools(serverB, { forwardedFor: `${other}, ${client}` }), TOOLS_LIST_LIMIT);
    // A trusted proxy after the client does not change who the client is.
    expectLimited(await listTools(serverA, { forwardedFor: `${client}, 127.0.0.1` }), TOOLS_LIST_LIMIT);
    // Nor does another address of the client's /64: an IPv6 client picks any of its 2^64 itself.
    expectLimited(await listTools(serverB, { forwardedFor: address(2, 0xbeef) }), TOOLS_LIST_LIMIT);
    // Another client (another /64) has a budget of its own.
    expectServed(await listTools(serverA, { forwardedFor: other }), TOOLS_LIST_LIMIT, TOOLS_LIST_LIMIT - 1);
  });

  it("refuses single messages of a 2025-03-26 batch once the budget runs out inside it (HTTP 200)", async () => {
    const sub = subject("batch");
    const token = await tokenFor(serverA, sub);
    const base = { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}` };
    const init = await fetch(`${serverA.url}/api/mcp`, {
      method: "POST",
      headers: base,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "rate-limit-test", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-03-26");
    const sessionId = init.headers.get("mcp-session-id");
    if (!sessionId) throw new Error("initialize answered without Mcp-Session-Id");
    const session = { ...base, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-03-26" };
    const initialized = await fetch(`${serverA.url}/api/mcp`, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(initialized.status).toBe(202);

    const size = 10;
    const batch = Array.from({ length: size }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "list_worlds", arguments: { limit: 1 } },
    }));
    const res = await fetch(`${serverA.url}/api/mcp`, { method: "POST", headers: session, body: JSON.stringify(batch), signal: AbortSignal.timeout(15_000) });
    expect(res.status).toBe(200);
    // The batch's answer carries the headers of the budget it spent down (outside probe: none).
    expect(res.headers.get("ratelimit-limit")).toBe(String(TOOLS_CALL_LIMIT));
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    const text = await res.text();
    const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    const parsed: unknown = sse ? sseMessages(text).flatMap((m) => (Array.isArray(m) ? m : [m])) : JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error(`a batch answered with ${text.slice(0, 300)}`);
    const answers = parsed.filter(isRecord);
    expect(answers.map((a) => a.id).sort((x, y) => Number(x) - Number(y))).toEqual(batch.map((m) => m.id));
    const results = answers.filter((a) => isRecord(a.result));
    const refused = answers.filter((a) => isRecord(a.error));
    expect(results).toHaveLength(TOOLS_CALL_LIMIT);
    expect(refused).toHaveLength(size - TOOLS_CALL_LIMIT);
    for (const answer of refused) {
      const error = answer.error as Json;
      expect(error.code).toBe(-32000);
      expect(error.message).toBe("Rate limit exceeded");
      expect(isRecord(error.data) && typeof error.data.retryAfter === "number" && error.data.retryAfter > 0).toBe(true);
    }
    // A single request of the session, alone in its POST, is refused with 429 and its own id
    // (basic §responses: "the same ID as the request"), not null.
    const alone = await fetch(`${serverA.url}/api/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ jsonrpc: "2.0", id: "alone", method: "tools/call", params: { name: "list_worlds", arguments: { limit: 1 } } }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(alone.status).toBe(429);
    expect(((await alone.json()) as Json).id).toBe("alone");
    // Spent in Redis like single requests are: the next single call on the other instance is refused.
    expectLimited(await listWorlds(serverB, { sub }), TOOLS_CALL_LIMIT);
  });
});

// ── 2. The stream cap across two instances ───────────────────────────────────────────────────

describe("open streams per caller across two instances", () => {
  it(`allows ${MAX_STREAMS} subscriptions/listen streams between them, refuses the next on either, and frees a slot on close`, async () => {
    const sub = subject("streams");
    // 3 on A and 2 on B (round robin), then the 6th on each.
    await proveStreamCap([serverA, serverB], sub);
  });
});

describe("deployments sharing one Redis under their own MCP_CLUSTER_PREFIX", () => {
  it("spend their own budgets and stream slots", async () => {
    const sub = subject("prefixed");
    for (let i = 0; i < TOOLS_CALL_LIMIT; i++) expectServed(await listWorlds(serverA, { sub }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1 - i);
    expectLimited(await listWorlds(serverA, { sub }), TOOLS_CALL_LIMIT);
    // The same caller on the other deployment starts with its whole budget (outside audit, 2026-11-27).
    expectServed(await listWorlds(staging, { sub }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1);
    expect(await inspect?.get(`${STAGING_PREFIX}:rl:tools-call:sub:${sub}:${Math.floor(Date.now() / WINDOW_MS)}`)).toBe("1");
    // All of one deployment's stream slots taken: the other still opens one.
    const open: ListenAttempt[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS; i++) {
        const attempt = await listen(serverA, { sub });
        expect(attempt.status).toBe(200);
        open.push(attempt);
      }
      expectTooManyStreams(await listen(serverA, { sub }));
      const other = await listen(staging, { sub });
      expect(other.status).toBe(200);
      open.push(other);
    } finally {
      await Promise.all(open.map((s) => s.close()));
    }
  });
});

// ── 3. When the store goes away ──────────────────────────────────────────────────────────────

describe("a rate-limit store that stops and comes back", () => {
  it("fails closed with 503 or open with 200 as configured, and counts again once Redis is back", async () => {
    if (!spare) throw new Error("no spare Redis");
    const store = spare;
    const before = subject("failure-before");
    expectServed(await listWorlds(failClosed, { sub: before }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1);
    expectServed(await listWorlds(failOpen, { sub: before }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 2);

    await store.stop();
    expect(store.running).toBe(false);
    const down = subject("failure-down");
    // closed: every budgeted request, and a new stream, is refused with 503 and Retry-After.
    for (const attempt of [await listWorlds(failClosed, { sub: down }), await listTools(failClosed, { sub: down })]) {
      expect(attempt.status).toBe(503);
      expect(Number(attempt.headers.get("retry-after"))).toBeGreaterThan(0);
      const error = attempt.body.error;
      if (!isRecord(error)) throw new Error(`no JSON-RPC error in ${JSON.stringify(attempt.body)}`);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/unavailable/i);
      expect(isRecord(error.data) && error.data.retryAfter).toBe(Number(attempt.headers.get("retry-after")));
    }
    const stream = await listen(failClosed, { sub: down });
    expect(stream.status).toBe(503);
    expect(Number(stream.headers.get("retry-after"))).toBeGreaterThan(0);
    // open: requests keep being served, more of them than the budget would allow (nothing counts).
    for (let i = 0; i < TOOLS_CALL_LIMIT + 2; i++) {
      const reply = await listWorlds(failOpen, { sub: down });
      expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(200);
      expect(isRecord(reply.body.result)).toBe(true);
    }
    const openStream = await listen(failOpen, { sub: down });
    expect(openStream.status).toBe(200);
    await openStream.close();

    // The same Redis, on the same port, empty: both recover by themselves.
    await store.start();
    const probe = subject("failure-probe");
    const recovered = await waitFor(
      async () => {
        const reply = await listWorlds(failClosed, { sub: probe });
        return reply.status === 200 ? reply : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(recovered?.status, "the fail-closed server serves again once Redis is back").toBe(200);
    const countedAgain = await waitFor(
      async () => {
        const reply = await listWorlds(failOpen, { sub: probe });
        return reply.headers.get("ratelimit-limit") !== null ? reply : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(countedAgain?.status, "the fail-open server counts again once Redis is back").toBe(200);

    // Limits count again, shared by both servers on the restarted Redis.
    const after = subject("failure-after");
    const replies: Reply[] = [];
    for (let i = 0; i <= TOOLS_CALL_LIMIT; i++) replies.push(await listWorlds(i % 2 === 0 ? failClosed : failOpen, { sub: after }));
    replies.slice(0, TOOLS_CALL_LIMIT).forEach((reply, i) => expectServed(reply, TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1 - i));
    expectLimited(replies[TOOLS_CALL_LIMIT] as Reply, TOOLS_CALL_LIMIT);
  }, 60_000);

  // lib/cluster/ioredis-connection.ts: after the first connection nothing waits in ioredis's
  // offline queue. An outside review found the budget checks of requests answered while Redis was
  // down sent once it came back: the caller's budget was spent by requests it was never charged for.
  it("does not charge requests answered while Redis was down to their caller once it is back", async () => {
    if (!spare) throw new Error("no spare Redis");
    const store = spare;
    const caller = subject("failure-uncharged");
    await store.stop();
    // Requests keep coming until the restart is under way, so some are issued after ioredis's
    // last give-up on its reconnection attempts (each second one), the ones it would send later.
    let answered = 0;
    let restarting = false;
    const during = (async () => {
      while (!restarting) {
        expect((await listWorlds(failOpen, { sub: caller })).status).toBe(200);
        answered += 1;
      }
    })();
    await sleep(1_500);
    restarting = true;
    await during;
    await store.start();
    expect(answered).toBeGreaterThan(2);
    const probe = subject("failure-uncharged-probe");
    await waitFor(
      async () => {
        const reply = await listWorlds(failOpen, { sub: probe });
        return reply.headers.get("ratelimit-limit") !== null ? reply : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    await sleep(500);
    expectServed(await listWorlds(failOpen, { sub: caller }), TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1);
  }, 60_000);
});

// ── 4. The Upstash REST client path ──────────────────────────────────────────────────────────

describe("budgets through @upstash/redis (UPSTASH_REDIS_REST_URL/TOKEN)", () => {
  it("enforces the tools/call budget exactly, with its counter in the Redis behind the REST API", async () => {
    if (!front) throw new Error("no Upstash stand-in");
    const rest = front;
    const sub = subject("upstash");
    const replies: Reply[] = [];
    for (let i = 0; i < TOOLS_CALL_LIMIT + 3; i++) replies.push(await listWorlds(viaUpstash, { sub }));
    replies.slice(0, TOOLS_CALL_LIMIT).forEach((reply, i) => expectServed(reply, TOOLS_CALL_LIMIT, TOOLS_CALL_LIMIT - 1 - i));
    for (const reply of replies.slice(TOOLS_CALL_LIMIT)) expectLimited(reply, TOOLS_CALL_LIMIT);
    expect(await storedToolsCallCount(sub)).toBe(String(TOOLS_CALL_LIMIT));
    // The counting really went through the REST API: scripts named this caller's keys, with base64 answers asked for.
    const scripted = rest.commands.filter((c) => (c[0] === "evalsha" || c[0] === "eval") && c.some((arg) => arg.startsWith(`mcp:rl:tools-call:sub:${sub}:`)));
    expect(scripted.length).toBeGreaterThanOrEqual(TOOLS_CALL_LIMIT);
    expect(rest.base64Requests).toBeGreaterThan(0);
    // The stand-in holds the line on credentials, as Upstash does.
    const refused = await fetch(rest.url, { method: "POST", headers: { authorization: "Bearer wrong" }, body: JSON.stringify(["PING"]) });
    expect(refused.status).toBe(401);
  });

  it(`caps open streams at ${MAX_STREAMS} per caller too`, async () => {
    if (!front) throw new Error("no Upstash stand-in");
    const sub = subject("upstash-streams");
    await proveStreamCap([viaUpstash], sub);
    expect(front.commands.some((c) => c[0] === "eval" && c.includes(`mcp:streams:sub:${sub}`))).toBe(true);
    expect(front.commands.some((c) => c[0] === "zrem" && c[1] === `mcp:streams:sub:${sub}`)).toBe(true);
  });
});
