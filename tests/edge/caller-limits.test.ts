import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { eraClient } from "../support/both-eras";
import { JSON_AND_SSE, post } from "../support/mcp-http";
import { waitFor } from "../support/sdk-client";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { startUpstashRestFront, type UpstashRestFront } from "../support/upstash-rest-front";
import { clearOfWindowTurn } from "../support/window-turn";

/**
 * Issue 19, budgets an outside attack run escaped, on servers of this file's own configuration:
 * - every request kind spends a budget: initialize (its own), and notifications, client responses,
 *   GET, DELETE and tools/batch itself (the "every other method" one; each of a batch's calls
 *   then spends tools/call's), in both eras where the kind exists;
 * - sessions are capped per caller: a caller's flood of initialize ends only its own oldest
 *   sessions, in process and in Redis (ioredis, and Upstash's REST API) — another caller's
 *   session is never evicted, and initializes at once leave exactly the cap;
 * - an anonymous caller is its socket address: a fresh `openai/subject` hint or X-Forwarded-For
 *   per request (no trusted proxy configured) neither escapes the tools/call budget nor the cap
 *   on open streams, in both eras.
 */
const RUN = randomBytes(4).toString("hex");
const LIMITS = {
  MCP_RATE_LIMIT_TOOLS_CALL: "3",
  MCP_RATE_LIMIT_INITIALIZE: "12",
  MCP_RATE_LIMIT_OTHER: "40",
  MCP_MAX_STREAMS_PER_CALLER: "2",
  MCP_MAX_SESSIONS_PER_CALLER: "3",
};
/** MCP_RATE_LIMIT_WINDOW_SECONDS left at its default; the tests that count a budget exactly start clear of its turn. */
const WINDOW_MS = 60_000;
const BURST_MS = 10_000;

const servers: RunningNextServer[] = [];
let memory: RunningNextServer;
let redis: RunningNextServer;
let upstash: RunningNextServer;
let front: UpstashRestFront;

async function start(env: Record<string, string>): Promise<RunningNextServer> {
  const port = await freePort();
  const server = await startNextServer({
    port,
    env: {
      ...LIMITS,
      ...env,
      DATABASE_URL: inject("databaseUrl"),
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_AUTH_KEYS_DIR: inject("devIssuerDir"),
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      MCP_RATE_LIMITS: "1",
      MCP_TRUSTED_PROXIES: "",
    },
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  front = await startUpstashRestFront({ redisUrl, token: `t19-${RUN}` });
  [memory, redis, upstash] = await Promise.all([
    start({ REDIS_URL: "", UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "" }),
    start({ REDIS_URL: redisUrl, MCP_CLUSTER_PREFIX: `t19-${RUN}` }),
    // REDIS_URL empty is unset: the sessions live in Redis through the REST API only.
    start({ REDIS_URL: "", UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: front.token, MCP_CLUSTER_PREFIX: `t19-up-${RUN}` }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await front?.close();
});

const endpointOf = (server: RunningNextServer) => `${server.url}/api/mcp`;
const initialize = (url: string, headers: Record<string, string>) =>
  post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } } }, headers);
const ping = (url: string, headers: Record<string, string>, sessionId: string) =>
  post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { ...headers, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" });

describe.each([
  { store: "in process", server: () => memory },
  { store: "Redis", server: () => redis },
  { store: "Upstash (REST)", server: () => upstash },
])("sessions $store", ({ server }) => {
  it("a caller's initialize flood ends only its own oldest sessions; another caller's session lives", async () => {
    const url = endpointOf(server());
    const bystander = { authorization: `Bearer ${await tokenFor(server().url, newSubject("bystander"))}` };
    const flooder = { authorization: `Bearer ${await tokenFor(server().url, newSubject("flooder"))}` };
    const kept = (await initialize(url, bystander)).headers.get("mcp-session-id")!;
    const flood: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const r = await initialize(url, flooder);
      expect(r.status, r.text).toBe(200);
      flood.push(r.headers.get("mcp-session-id")!);
    }
    expect((await ping(url, bystander, kept)).status).toBe(200);
    // MCP_MAX_SESSIONS_PER_CALLER=3: the flooder keeps its newest three.
    for (const id of flood.slice(0, 5)) expect((await ping(url, flooder, id)).status, id).toBe(404);
    for (const id of flood.slice(5)) expect((await ping(url, flooder, id)).status, id).toBe(200);
  });

  // Outside audit (2026-11-28): an evicted session answered 404, yet its GET streams stayed open
  // and held the caller's stream slots, so its live sessions were refused streams (429).
  it("a session ended to make room closes its streams and frees their slots", async () => {
    const url = endpointOf(server());
    const auth = { authorization: `Bearer ${await tokenFor(server().url, newSubject("evicted-streams"))}` };
    const openGet = async () => {
      const sessionId = (await initialize(url, auth)).headers.get("mcp-session-id")!;
      const abort = new AbortController();
      const res = await fetch(url, { method: "GET", headers: { ...auth, accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }, signal: abort.signal });
      expect(res.status).toBe(200);
      return { sessionId, res, close: () => abort.abort() };
    };
    // MCP_MAX_STREAMS_PER_CALLER=2: two sessions, each with its GET stream, fill the slots.
    const old = [await openGet(), await openGet()];
    try {
      // MCP_MAX_SESSIONS_PER_CALLER=3: the next three sessions end both old ones.
      const fresh: string[] = [];
      for (let i = 0; i < 3; i += 1) fresh.push((await initialize(url, auth)).headers.get("mcp-session-id")!);
      for (const o of old) expect((await ping(url, auth, o.sessionId)).status).toBe(404);
      // Their streams end (the body reaches its end) …
      for (const o of old) await expect(o.res.text()).resolves.toEqual(expect.any(String));
      // … and their slots are free for a live session's stream.
      const headers = { ...auth, accept: "text/event-stream", "mcp-session-id": fresh[2]!, "mcp-protocol-version": "2025-11-25" };
      const granted = await waitFor(async () => ((await fetch(url, { method: "HEAD", headers, signal: AbortSignal.timeout(5_000) })).status === 200 ? true : undefined), { timeoutMs: 5_000, intervalMs: 200 });
      expect(granted, "a stream slot is free once the evicted sessions' streams are closed").toBe(true);
    } finally {
      for (const o of old) o.close();
    }
  });

  it("initializes at once still leave a caller exactly its cap of sessions (none left off its list yet alive)", async () => {
    const url = endpointOf(server());
    const flooder = { authorization: `Bearer ${await tokenFor(server().url, newSubject("burst"))}` };
    // MCP_RATE_LIMIT_INITIALIZE=12 per window: all twelve at once, none refused.
    const opened = await Promise.all(Array.from({ length: 12 }, () => initialize(url, flooder)));
    expect(opened.map((r) => r.status)).toEqual(Array(12).fill(200));
    const statuses = await Promise.all(opened.map((r) => ping(url, flooder, r.headers.get("mcp-session-id")!).then((p) => p.status)));
    expect(statuses.filter((s) => s === 200).length, statuses.join()).toBe(3);
    expect(statuses.filter((s) => s === 404).length, statuses.join()).toBe(9);
  });
});

describe("every request kind spends a budget", () => {
  it("initialize has a budget of its own (429 past MCP_RATE_LIMIT_INITIALIZE)", async () => {
    await clearOfWindowTurn(WINDOW_MS, BURST_MS);
    const url = endpointOf(memory);
    const caller = { authorization: `Bearer ${await tokenFor(memory.url, newSubject("init"))}` };
    const statuses: number[] = [];
    for (let i = 0; i < 13; i += 1) statuses.push((await initialize(url, caller)).status);
    expect(statuses.slice(0, 12).every((s) => s === 200), statuses.join()).toBe(true);
    const refused = await initialize(url, caller);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((refused.json as { error: { code: number } }).error.code).toBe(-32000);
    // The refusal answers the request it refused: its id was readable (JSON-RPC 2.0 §5).
    expect((refused.json as { id: unknown }).id).toBe(0);
  });

  it("notifications and client responses spend the other budget, in both eras; so does DELETE", async () => {
    await clearOfWindowTurn(WINDOW_MS, BURST_MS);
    const url = endpointOf(memory);
    const token = await tokenFor(memory.url, newSubject("notify"));
    const auth = { authorization: `Bearer ${token}` };
    const sessionHeaders = async () => {
      const r = await initialize(url, auth);
      return { ...auth, "mcp-session-id": r.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    };
    const headers = await sessionHeaders();
    const statuses: number[] = [];
    for (let i = 0; i < 45 && !statuses.includes(429); i += 1) {
      const message = i % 2 === 0 ? { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: i } } : { jsonrpc: "2.0", id: `unasked-${i}`, result: {} };
      statuses.push((await post(url, message, headers)).status);
    }
    expect(statuses.at(-1), statuses.join()).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 202)).toBe(true);
    // The same caller's 2026-07-28 notification: the same spent budget.
    const late = await post(url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }, { ...auth, accept: JSON_AND_SSE, "mcp-protocol-version": "2026-07-28", "mcp-method": "notifications/cancelled" });
    expect(late.status, late.text).toBe(429);
    const del = await fetch(url, { method: "DELETE", headers });
    expect(del.status).toBe(429);
  });
});

describe("the tasks methods spend a budget of their own", () => {
  // Outside audit (2026-11-27): tasks/* shared the other budget (here 40), so a client polling its
  // running tasks at the advertised pollIntervalMs was refused 429 within a minute (SEP-2663: a
  // server may limit only polling faster than the interval). Unset, MCP_RATE_LIMIT_TASKS is every
  // task a caller may run (10) polled each second of the window (60), twice over: 1,200.
  it.each(["2025-11-25", "2026-07-28"] as const)("60 tasks/get in a row are all answered, against the tasks budget (%s)", async (era) => {
    const url = endpointOf(memory);
    const client = await eraClient(url, era, await tokenFor(memory.url, newSubject(`tasks-${era}`)));
    const taskId = `no-such-task-${RUN}`;
    const replies = [];
    for (let i = 0; i < 60; i += 1) replies.push(await client.request("tasks/get", { taskId }, era === "2026-07-28" ? { "mcp-name": taskId } : {}));
    expect(replies.map((r) => r.status).filter((status) => status === 429)).toEqual([]);
    expect(replies[0]!.headers.get("ratelimit-limit")).toBe("1200");
    // A sliding window: when a window turns mid-run, the calls before the turn count a little less.
    const remaining = Number(replies[59]!.headers.get("ratelimit-remaining"));
    expect(remaining).toBeGreaterThanOrEqual(1200 - 60);
    expect(remaining).toBeLessThanOrEqual(1200 - 55);
  });
});

describe("tools/batch spends a budget of its own", () => {
  // Issue: budgetsOf gave tools/batch none, so a batch refused before its calls were admitted
  // (`calls: []`) cost nothing: 1,100 of them got 400, never 429, and no RateLimit-* headers.
  // Session era only: 2026-07-28 has no tools/batch (404 -32601, tests/http/stateless-era.test.ts).
  it.each(["2025-11-25"] as const)("an empty tools/batch spends the other budget, then is 429 (%s)", async (era) => {
    await clearOfWindowTurn(WINDOW_MS, BURST_MS);
    const url = endpointOf(memory);
    const client = await eraClient(url, era, await tokenFor(memory.url, newSubject(`batch-${era}`)));
    const replies = [];
    for (let i = 0; i < 45; i += 1) {
      const r = await client.request("tools/batch", { calls: [] });
      replies.push(r);
      if (r.status === 429) break;
    }
    const statuses = replies.map((r) => r.status);
    // MCP_RATE_LIMIT_OTHER=40; the 2025-11-25 session's notifications/initialized spent one of them.
    const allowed = 39;
    expect(statuses.indexOf(429), statuses.join()).toBe(allowed);
    // Each refused batch still says what it cost (-32602: no calls), with the budget's headers.
    expect(replies[0]!.headers.get("ratelimit-limit")).toBe("40");
    expect(replies[0]!.headers.get("ratelimit-remaining")).toBe(String(allowed - 1));
    expect(replies[0]!.message).toMatchObject({ error: { code: -32602 } });
    expect(replies[allowed]!.message).toMatchObject({ error: { code: -32000, message: "Rate limit exceeded" } });
  });
});

describe("an anonymous caller is its socket address", () => {
  const fresh = (i: number) => ({ hint: `hint-${RUN}-${i}`, address: `198.51.100.${(i % 250) + 1}` });

  it("a fresh openai/subject hint and X-Forwarded-For per call do not escape the tools/call budget, in both eras", async () => {
    await clearOfWindowTurn(WINDOW_MS, BURST_MS);
    const url = endpointOf(memory);
    const legacy = await eraClient(url, "2025-11-25");
    const modern = await eraClient(url, "2026-07-28");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const { hint, address } = fresh(i);
      const r = await legacy.request("tools/call", { name: "suggest_names", arguments: { style: "elvish", count: 1 }, _meta: { "openai/subject": hint } }, { "x-forwarded-for": address, "x-real-ip": address });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const { hint, address } = fresh(99);
    const r = await modern.request("tools/call", { name: "suggest_names", arguments: { style: "elvish", count: 1 }, _meta: { "openai/subject": hint } }, { "x-forwarded-for": address });
    expect(r.status, r.text).toBe(429);
  });

  it("nor the cap on open streams (GET and subscriptions/listen)", async () => {
    const url = endpointOf(memory);
    const sessionId = (await initialize(url, {})).headers.get("mcp-session-id")!;
    const opened: AbortController[] = [];
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        const abort = new AbortController();
        opened.push(abort);
        const { hint, address } = fresh(200 + i);
        const r = await fetch(url, { method: "GET", signal: abort.signal, headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25", "x-forwarded-for": address, "x-openai-subject": hint } });
        statuses.push(r.status);
        if (r.status !== 200) await r.text();
      }
      expect(statuses).toEqual([200, 200, 429]);
      const listen = await post(url, { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "openai/subject": fresh(300).hint } } }, { accept: JSON_AND_SSE, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen", "x-forwarded-for": fresh(300).address });
      expect(listen.status, listen.text).toBe(429);
    } finally {
      for (const abort of opened) abort.abort();
    }
  });
});

// RFC 9110 §9.3.2 and docs/edge.md: HEAD runs GET's checks, the cap on open streams included,
// and answers GET's status and header fields without opening a stream (so without a slot).
describe.each([
  { store: "in process", server: () => memory },
  { store: "Redis", server: () => redis },
  { store: "Upstash (REST)", server: () => upstash },
])("HEAD at the cap on open streams, $store", ({ server }) => {
  // Outside audit (2026-11-28): HEAD answered 200 where GET answered 400.
  it("answers GET's 400 for a Last-Event-ID it cannot resume from, and 200 for one it can", async () => {
    const url = endpointOf(server());
    const auth = { authorization: `Bearer ${await tokenFor(server().url, newSubject("head-resume"))}` };
    const sessionId = (await initialize(url, auth)).headers.get("mcp-session-id")!;
    const headers = { ...auth, accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    for (const lastEventId of ["nosuchstream_5", "not-an-event-id"]) {
      const get = await fetch(url, { method: "GET", headers: { ...headers, "last-event-id": lastEventId }, signal: AbortSignal.timeout(5_000) });
      expect(get.status, lastEventId).toBe(400);
      await get.text();
      const head = await fetch(url, { method: "HEAD", headers: { ...headers, "last-event-id": lastEventId }, signal: AbortSignal.timeout(5_000) });
      expect(head.status, lastEventId).toBe(400);
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    }
    // The priming event's id of the session's own stream: HEAD says GET would resume it.
    const abort = new AbortController();
    const stream = await fetch(url, { method: "GET", headers, signal: abort.signal });
    try {
      const reader = stream.body!.getReader();
      let text = "";
      while (!/^id: (\S+)$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      const primed = /^id: (\S+)$/m.exec(text)![1]!;
      const head = await fetch(url, { method: "HEAD", headers: { ...headers, "last-event-id": primed }, signal: AbortSignal.timeout(5_000) });
      expect(head.status).toBe(200);
    } finally {
      abort.abort();
    }
  });

  it("answers GET's 429 while every slot is open, and 200 once one is free, taking none", async () => {
    const url = endpointOf(server());
    const auth = { authorization: `Bearer ${await tokenFor(server().url, newSubject("head-cap"))}` };
    const sessionId = (await initialize(url, auth)).headers.get("mcp-session-id")!;
    const headers = { ...auth, accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const get = async () => {
      const abort = new AbortController();
      const res = await fetch(url, { method: "GET", headers, signal: abort.signal });
      if (res.status !== 200) await res.text();
      return { status: res.status, headers: res.headers, close: () => abort.abort() };
    };
    const head = () => fetch(url, { method: "HEAD", headers, signal: AbortSignal.timeout(5_000) });
    // MCP_MAX_STREAMS_PER_CALLER=2; a GET stream replaces the session's standalone stream, not its slot.
    const open = [await get(), await get()];
    try {
      expect(open.map((o) => o.status)).toEqual([200, 200]);
      const refusedGet = await get();
      expect(refusedGet.status).toBe(429);
      const refusedHead = await head();
      expect(refusedHead.status).toBe(429);
      // The cap is GET's first refusal, before a Last-Event-ID it could not resume: HEAD's too.
      const withBadId = await fetch(url, { method: "HEAD", headers: { ...headers, "last-event-id": "nosuchstream_5" }, signal: AbortSignal.timeout(5_000) });
      expect(withBadId.status).toBe(429);
      expect(refusedHead.headers.get("retry-after")).toBe(refusedGet.headers.get("retry-after"));
      expect(refusedHead.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await refusedHead.text()).toBe("");

      open.shift()?.close();
      const granted = await waitFor(async () => ((await head()).status === 200 ? true : undefined), { timeoutMs: 4_000, intervalMs: 200 });
      expect(granted, "HEAD answers 200 once a slot is free").toBe(true);
      // HEADs took no slot: the free one is still there for a GET, and then none is.
      for (let i = 0; i < 3; i += 1) expect((await head()).status).toBe(200);
      const reopened = await get();
      open.push(reopened);
      expect(reopened.status).toBe(200);
      expect((await head()).status).toBe(429);
    } finally {
      for (const o of open) o.close();
    }
  });
});
