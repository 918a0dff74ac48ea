/**
 * Redis commands per request kind: the `limits-redis` server (sessions, rate limits and the cluster
 * bus all in Redis: REDIS_URL) answers a fixed number of each kind one after another while a
 * MONITOR connection records every command of the bench's Redis database, and Redis's own count of
 * the reads it processed (INFO stats) gives the round trips: a pipeline or MULTI arrives in one
 * read. Selected like a system: "redis-trips". Not timed (MONITOR slows Redis down): it counts, it
 * does not measure latency.
 */
import http from "node:http";
import { Redis } from "ioredis";
import { CONFIG, MCP_PATH, PROTOCOL_VERSION } from "../config.mjs";
import { fmt } from "../report/stats.mjs";
import { servers } from "../servers/lifecycle.mjs";
import { ACCEPT, ERAS, openSession, request, rpc, sleep } from "./client.mjs";
import { SUGGEST_NAMES } from "./systems.mjs";

/** The name BENCH_SYSTEMS selects it by. */
export const REDIS_TRIPS = "redis-trips";

/** Requests of each kind (BENCH_REDIS_TRIP_REQUESTS). */
export const TRIP_REQUESTS = Number(process.env.BENCH_REDIS_TRIP_REQUESTS || 50);

/**
 * The request kinds, each a body builder and headers (`session`: an anonymous 2025 session), and
 * issue 22's goal in round trips: at most one (pipelined) for a session request, nothing beyond
 * the limiter's one for a 2026-07-28 request.
 */
export function tripKinds(session) {
  const modern = ERAS[1];
  const init = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } };
  // initialize last: each one opens a session of this caller, and past MCP_MAX_SESSIONS_PER_CALLER
  // the caller's oldest (the one the session rows use) would be ended.
  return [
    { kind: "tools/call in a 2025-11-25 session", body: rpc("tools/call", SUGGEST_NAMES), headers: session, goal: 1 },
    { kind: "tools/list in a 2025-11-25 session", body: rpc("tools/list"), headers: session, goal: 1 },
    { kind: "tools/call 2026-07-28", body: modern.body("tools/call", SUGGEST_NAMES), headers: modern.headers("tools/call", SUGGEST_NAMES.name), goal: 1 },
    { kind: "tools/list 2026-07-28", body: modern.body("tools/list"), headers: modern.headers("tools/list"), goal: 1 },
    { kind: "initialize (2025-11-25, opens a session)", body: rpc("initialize", init), headers: { accept: ACCEPT } },
  ];
}

/** Counts every command of database `db` on MONITOR into `sink` while on. */
async function monitorOf(url, db) {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const monitor = await client.monitor();
  const state = { on: false, commands: [] };
  monitor.on("monitor", (_time, args, source, database) => {
    if (!state.on || String(database) !== String(db)) return;
    state.commands.push({ name: String(args[0]).toUpperCase(), source: String(source) });
  });
  return {
    state,
    async close() {
      monitor.disconnect();
      client.disconnect();
    },
  };
}

/**
 * Commands, per-command counts and Lua-internal commands of one window. The bus
 * subscriber's liveness PING (lib/cluster/connection-watchdog.ts) runs on a timer whatever the
 * requests do, so one landing in a window is not a request's: it is counted apart (`pings`), as
 * tests/edge/redis-round-trips.test.ts leaves it out.
 */
function tally(commands) {
  const lua = commands.filter((c) => c.source === "lua").length;
  const pings = commands.filter((c) => c.source !== "lua" && c.name === "PING").length;
  // INFO is this cell's own reading of the read counter.
  const outside = commands.filter((c) => c.source !== "lua" && c.name !== "PING" && c.name !== "INFO");
  const byName = {};
  for (const c of outside) byName[c.name] = (byName[c.name] ?? 0) + 1;
  return { commands: outside.length, lua, pings, byName };
}

/**
 * Reads Redis has processed, server-wide (INFO stats total_reads_processed): one per round trip
 * of any client, a pipeline or MULTI included. The INFO that reads it is one read of its own.
 */
async function readCounterOf(url) {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  return {
    read: async () => Number(/total_reads_processed:(\d+)/.exec(await client.info("stats"))?.[1]),
    close: () => client.disconnect(),
  };
}

/** Every kind: TRIP_REQUESTS requests one after another, the commands between first send and a settle. */
export async function measureRedisTrips(context) {
  const server = servers.get("limits-redis");
  const db = Number(new URL(context.redis.url).pathname.slice(1) || 0);
  const monitor = await monitorOf(context.redis.url, db);
  const counter = await readCounterOf(context.redis.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results = [];
  try {
    // An idle window of the same kind first: what the server does in Redis with no request at all.
    const idleMs = 1000;
    const window = async (work) => {
      monitor.state.commands = [];
      monitor.state.on = true;
      const before = await counter.read();
      await work();
      const after = await counter.read();
      monitor.state.on = false;
      const t = tally(monitor.state.commands);
      // Less the closing INFO's own read and the liveness PINGs' (one read each).
      return { ...t, roundTrips: after - before - 1 - t.pings };
    };
    const idle = await window(() => sleep(idleMs));
    // A session of its own, opened now: the rounds before may have ended the server's first one.
    for (const k of tripKinds(await openSession(server))) {
      // Warm the kind up outside the window (first-use work is not per request).
      for (let i = 0; i < 5; i++) await request(agent, server, MCP_PATH, k.body(1_000_000 + i), k.headers);
      await sleep(300); // let deferred work (audit flushes, after-response tasks) finish outside it
      const t0 = performance.now();
      const t = await window(async () => {
        for (let i = 1; i <= TRIP_REQUESTS; i++) {
          const res = await request(agent, server, MCP_PATH, k.body(i), k.headers);
          if (res.status !== 200) throw new Error(`${k.kind}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
        }
        await sleep(200);
      });
      const windowMs = performance.now() - t0;
      results.push({ kind: k.kind, goal: k.goal, requests: TRIP_REQUESTS, windowMs, ...t });
      console.log(`[bench] redis trips: ${k.kind}: ${fmt(t.commands / TRIP_REQUESTS, 2)} commands, ${fmt(t.roundTrips / TRIP_REQUESTS, 2)} round trips per request (${Object.entries(t.byName).map(([n, v]) => `${n} ${fmt(v / TRIP_REQUESTS, 2)}`).join(", ")})`);
    }
    return { results, idle: { ...idle, ms: idleMs }, db };
  } finally {
    agent.destroy();
    counter.close();
    await monitor.close();
  }
}

/** RESULTS.md's section. */
export function redisTripsLines(trips) {
  const lines = [
    "| request kind | requests | Redis commands / request | round trips (Redis reads) / request | goal (issue 22) | result | by command, per request | inside Lua scripts / request |",
    "|---|--:|--:|--:|--:|---|---|--:|",
  ];
  for (const r of trips.results) {
    const by = Object.entries(r.byName).sort((a, b) => b[1] - a[1]).map(([n, v]) => `${n} ${fmt(v / r.requests, 2)}`).join(", ");
    const trips = r.roundTrips / r.requests;
    const verdict = r.goal === undefined ? "" : trips <= r.goal ? "pass" : "**miss**";
    lines.push(`| ${r.kind} | ${r.requests} | **${fmt(r.commands / r.requests, 2)}** | ${fmt(trips, 2)} | ${r.goal === undefined ? "" : `≤ ${r.goal}`} | ${verdict} | ${by || "none"} | ${fmt(r.lua / r.requests, 2)} |`);
  }
  lines.push("");
  lines.push(`Counted with MONITOR on database ${trips.db} while \`limits-redis\` (REDIS_URL: sessions, rate limits and the cluster bus in`);
  lines.push(`Redis; limits on, budgets never reached) answered ${TRIP_REQUESTS} requests of each kind one after another (c=1, after 5 warm-up`);
  lines.push("requests and a 300 ms pause), plus 200 ms after the last for work done after the response. Round trips = the reads");
  lines.push("Redis processed meanwhile (INFO stats total_reads_processed, server-wide: a pipeline or MULTI arrives in one read), less this");
  lines.push("cell's own INFO and the liveness PINGs; another client of the same Redis during the run would add to it.");
  lines.push("Goal: one round trip (pipelined) for a session request, the limiter's alone for a 2026-07-28 one; the limiter's");
  lines.push("EVALSHA is one of them in every row, as limits are on here.");
  lines.push(`Commands run by the limiter's Lua scripts are counted apart. In an idle ${trips.idle.ms} ms window the server sent ${trips.idle.commands} command(s)${Object.keys(trips.idle.byName).length ? ` (${Object.entries(trips.idle.byName).map(([n, v]) => `${n} ${v}`).join(", ")})` : ""}: the background, included above.`);
  const pings = trips.results.reduce((sum, r) => sum + r.pings, 0) + trips.idle.pings;
  lines.push(`The bus subscriber's liveness PING runs on a timer, not per request, and is left out of every count: ${pings} fell inside these windows.`);
  return lines;
}
