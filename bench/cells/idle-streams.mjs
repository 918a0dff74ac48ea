/**
 * Idle streams on one instance (issue 22): N concurrent long-lived streams — half GET streams of
 * 2025-11-25 sessions, half 2026-07-28 subscriptions/listen — held open on the `streams` server
 * while every keep-alive each one receives is timed. Reports whether every stream got its pings
 * on time, the server's RSS growth per stream, and a tools/call's p50 during the hold against the
 * same request just before. Selected like a system: "idle-streams".
 *
 *   BENCH_STREAMS            streams in all (default 10000; half GET, half listen)
 *   BENCH_STREAM_PING_MS     the server's keep-alive interval for both kinds (default 5000)
 *   BENCH_STREAM_HOLD_SECONDS how long they are held open (default 16: three pings)
 *
 * The `streams` server runs with limits off, so no per-caller stream slots apply (with limits on,
 * MCP_MAX_STREAMS_PER_CALLER caps one caller at 1,000), and with the session store and the stream
 * lifetimes raised (catalog.mjs). Every stream is a connection of its own (agent: false): the
 * client holds N sockets, so `ulimit -n` must exceed N plus a margin (checked before opening).
 */
import { execSync } from "node:child_process";
import http from "node:http";
import { closedLoop } from "../closed-loop.mjs";
import { HOST, MCP_PATH } from "../config.mjs";
import { HOLD_SECONDS, STREAM_PING_MS, STREAMS } from "../servers/streams-env.mjs";
import { fmt, median, percentile, ascending } from "../report/stats.mjs";
import { servers } from "../servers/lifecycle.mjs";
import { ACCEPT, ERAS, openSession, request, sleep } from "./client.mjs";
import { treeRssKb } from "./proc.mjs";
import { isToolResult, SUGGEST_NAMES } from "./systems.mjs";

export const IDLE_STREAMS = "idle-streams";
export const IDLE_SERVER = "streams";
/** A twin process for the floor: the same number of bare-route streams (POST /api/ceiling/stream). */
export const FLOOR_STREAMS_SERVER = "streams-floor";
const FLOOR_STREAM_PATH = "/api/ceiling/stream";

/** A ping is late when it comes more than this after the one before (or the stream's first bytes). */
const lateAfterMs = () => STREAM_PING_MS + Math.max(1_000, STREAM_PING_MS / 4);

/** Opening in waves of this many at once (connections, initialize handshakes). */
const WAVE = 64;

/** Runs `task(i)` for i < count, `WAVE` at a time. */
async function inWaves(count, task) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(WAVE, count) }, async () => {
    while (next < count) await task(next++);
  }));
}

/**
 * Opens one stream (its own connection) and records when each chunk arrives. Resolves once the
 * first bytes are in (headers and the priming event or the acknowledgement).
 */
function openStream(server, { method, body, headers, path = MCP_PATH }) {
  return new Promise((resolve, reject) => {
    const stream = { arrivals: [], ended: false, status: 0, req: undefined };
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      { host: HOST, port: server.port, path, method, agent: false, headers: { ...headers, ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}) } },
      (res) => {
        stream.status = res.statusCode;
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${method} stream: HTTP ${res.statusCode}`));
          return;
        }
        res.on("data", () => {
          stream.arrivals.push(performance.now());
          if (stream.arrivals.length === 1) resolve(stream);
        });
        res.on("end", () => (stream.ended = true));
        res.on("error", () => (stream.ended = true));
      },
    );
    stream.req = req;
    req.on("error", (err) => {
      stream.ended = true;
      reject(err);
    });
    req.end(payload);
  });
}

/** tools/call@2026 closed loop at c=1 for `seconds`: its p50 (and that every answer was right). */
async function toolCallP50(server, seconds) {
  const modern = ERAS[1];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const check = isToolResult();
  let id = 1;
  try {
    const cell = await closedLoop({
      concurrency: 1,
      seconds,
      call: async () => {
        const res = await request(agent, server, MCP_PATH, modern.body("tools/call", SUGGEST_NAMES)(id++), modern.headers("tools/call", SUGGEST_NAMES.name));
        return res.status === 200 && check(JSON.parse(res.body)) ? undefined : `HTTP ${res.status}: ${res.body.slice(0, 200)}`;
      },
    });
    if (cell.errors > 0) throw new Error(`tools/call beside the streams: ${cell.errors} errors, first: ${cell.firstError}`);
    return { p50: percentile(ascending(cell.latencies), 50), requests: cell.ok };
  } finally {
    agent.destroy();
  }
}

function openFilesLimit() {
  try {
    return Number(execSync("ulimit -n", { shell: "/bin/sh" }).toString().trim());
  } catch {
    return NaN;
  }
}

/**
 * The floor: as many bare-route streams as ours (each reads its body, answers SSE and pings on the
 * same interval) on a fresh twin process, RSS read before and 0.5 s after they are all open. What
 * any route handler on this framework holds per open response, before any MCP work.
 */
async function measureFloorStreams(count) {
  const server = servers.get(FLOOR_STREAMS_SERVER);
  const open = async () => {
    const streams = [];
    try {
      await inWaves(count, async () => {
        streams.push(await openStream(server, { method: "POST", path: FLOOR_STREAM_PATH, body: "{}", headers: { accept: "text/event-stream" } }));
      });
      await sleep(500);
      return treeRssKb(server.pid);
    } finally {
      for (const s of streams) s.req?.destroy();
    }
  };
  // One pass on the twin as it stands after its warm-up, as ours is measured. (A first pass to
  // "grow the heap" left the second reusing hundreds of MiB the first had freed: 19–52 KiB per
  // stream by run, where the live heap per stream is the same as ours, bench/stream-heap.)
  const rssBefore = treeRssKb(server.pid);
  return { count, rssBefore, rssStreams: await open() };
}

export async function measureIdleStreams() {
  const server = servers.get(IDLE_SERVER);
  const limit = openFilesLimit();
  if (Number.isFinite(limit) && limit < STREAMS + 500) throw new Error(`ulimit -n is ${limit}: ${STREAMS} streams need at least ${STREAMS + 500} (raise it, or set BENCH_STREAMS lower)`);
  const gets = Math.floor(STREAMS / 2);
  const listens = STREAMS - gets;
  const seconds = Math.min(5, Math.max(1, HOLD_SECONDS / 3));

  // Without streams: the reference p50 (after a warm-up of the same length); then the sessions the
  // GET streams need, and the RSS before any stream.
  await toolCallP50(server, seconds);
  const before = await toolCallP50(server, seconds);
  const rss0 = treeRssKb(server.pid);
  const t0 = performance.now();
  const sessions = new Array(gets);
  await inWaves(gets, async (i) => {
    sessions[i] = await openSession(server);
  });
  const sessionsMs = performance.now() - t0;
  await sleep(500);
  const rssSessions = treeRssKb(server.pid);

  const streams = [];
  const modern = ERAS[1];
  const t1 = performance.now();
  try {
    // The GET streams first, then the listens, with the RSS read between: each kind's own growth.
    await inWaves(gets, async (i) => {
      streams.push(await openStream(server, { method: "GET", headers: { ...sessions[i], accept: "text/event-stream" } }));
    });
    await sleep(500);
    const rssGets = treeRssKb(server.pid);
    await inWaves(listens, async (i) => {
      const body = modern.body("subscriptions/listen", { notifications: { toolsListChanged: true } })(i + 1);
      streams.push(await openStream(server, { method: "POST", body, headers: { ...modern.headers("subscriptions/listen"), accept: ACCEPT } }));
    });
    const openMs = performance.now() - t1;
    console.log(`[bench] idle streams: ${gets} sessions in ${fmt(sessionsMs / 1000, 1)} s, ${STREAMS} streams open in ${fmt(openMs / 1000, 1)} s; holding ${HOLD_SECONDS} s (pings every ${STREAM_PING_MS} ms)`);
    const holdStart = performance.now();
    // Mid-hold: the same tools/call with every stream open.
    await sleep(Math.max(0, (HOLD_SECONDS - seconds) * 500));
    const during = await toolCallP50(server, seconds);
    const rssStreams = treeRssKb(server.pid);
    await sleep(Math.max(0, HOLD_SECONDS * 1000 - (performance.now() - holdStart)));
    const holdEnd = performance.now();

    // Every stream: the largest gap between arrivals from its first bytes to the end of the hold
    // (the tail after its last ping counts too), and its pings during the hold.
    const late = lateAfterMs();
    const gaps = [];
    let onTime = 0;
    let ended = 0;
    const pings = [];
    for (const s of streams) {
      const times = [...s.arrivals, holdEnd];
      let gap = 0;
      for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
      gaps.push(gap);
      pings.push(s.arrivals.filter((t) => t > holdStart).length);
      if (s.ended) ended++;
      else if (gap <= late) onTime++;
    }
    const sorted = ascending(gaps);
    const result = {
      streams: STREAMS,
      gets,
      listens,
      pingMs: STREAM_PING_MS,
      holdSeconds: HOLD_SECONDS,
      lateMs: late,
      sessionsMs,
      openMs,
      onTime,
      ended,
      gapP50: percentile(sorted, 50),
      gapP99: percentile(sorted, 99),
      gapMax: sorted[sorted.length - 1],
      pingsMedian: median(pings),
      pingsMin: Math.min(...pings),
      rss0,
      rssSessions,
      rssGets,
      rssStreams,
      before,
      during,
    };
    // Ours are closed first (the client holds one set of sockets at a time).
    for (const s of streams) s.req?.destroy();
    streams.length = 0;
    result.floor = await measureFloorStreams(STREAMS);
    console.log(`[bench] idle streams: ${onTime}/${STREAMS} on time (largest gap p50 ${fmt(result.gapP50)} ms, max ${fmt(result.gapMax)} ms), ${ended} ended early; RSS +${fmt(((rssStreams - rssSessions) * 1024) / STREAMS / 1024, 1)} KiB per stream; tools/call p50 ${fmt(before.p50, 2)} → ${fmt(during.p50, 2)} ms`);
    return result;
  } finally {
    for (const s of streams) s.req?.destroy();
  }
}

/** RESULTS.md's section. */
export function idleStreamsLines(r) {
  const perStream = ((r.rssStreams - r.rssSessions) / r.streams).toFixed(1);
  const perSession = ((r.rssSessions - r.rss0) / r.gets).toFixed(1);
  const ratio = r.during.p50 / r.before.p50;
  return [
    "| measure | value | goal |",
    "|---|--:|---|",
    `| streams held open (GET of 2025-11-25 sessions + 2026-07-28 subscriptions/listen) | ${fmt(r.streams)} (${fmt(r.gets)} + ${fmt(r.listens)}) | 10,000 |`,
    `| streams whose every keep-alive came on time (gap ≤ ${fmt(r.lateMs)} ms; ping every ${fmt(r.pingMs)} ms, held ${r.holdSeconds} s) | **${fmt(r.onTime)} / ${fmt(r.streams)}**${r.ended ? `, ${fmt(r.ended)} ended early` : ""} | all |`,
    `| largest gap per stream: p50 / p99 / max ms | ${fmt(r.gapP50)} / ${fmt(r.gapP99)} / ${fmt(r.gapMax)} | ≤ ${fmt(r.lateMs)} |`,
    `| keep-alives per stream during the hold: median / fewest | ${fmt(r.pingsMedian)} / ${fmt(r.pingsMin)} | |`,
    `| server RSS: before / with ${fmt(r.gets)} sessions / with every stream open, MiB | ${fmt(r.rss0 / 1024, 1)} / ${fmt(r.rssSessions / 1024, 1)} / ${fmt(r.rssStreams / 1024, 1)} | |`,
    `| RSS growth per stream (sessions already open), KiB | **${perStream}** | ≤ 16 |`,
    ...(r.floor ? [`| the floor: RSS growth per bare-route stream (\`POST ${FLOOR_STREAM_PATH}\`: reads the body, answers SSE, pings; ${fmt(r.floor.count)} on a twin process, one pass as ours), KiB | ${((r.floor.rssStreams - r.floor.rssBefore) / r.floor.count).toFixed(1)} | ≤ 16: ${(r.floor.rssStreams - r.floor.rssBefore) / r.floor.count <= 16 ? "met" : "**missed by the floor itself**"} |`] : []),
    `| of which: per GET stream / per subscriptions/listen stream, KiB | ${((r.rssGets - r.rssSessions) / r.gets).toFixed(1)} / ${((r.rssStreams - r.rssGets) / r.listens).toFixed(1)} | |`,
    `| RSS growth per 2025-11-25 session (before its stream), KiB | ${perSession} | |`,
    `| tools/call@2026 p50 at c=1: without streams → with every stream open, ms | ${fmt(r.before.p50, 2)} → ${fmt(r.during.p50, 2)} (**${fmt(ratio, 2)}x**) | ≤ 1.2x |`,
    `| time to open: the sessions / every stream, s | ${fmt(r.sessionsMs / 1000, 1)} / ${fmt(r.openMs / 1000, 1)} | |`,
    "",
    `One \`next start\` (\`${IDLE_SERVER}\`: main's settings, limits off so no per-caller stream slots, MCP_SSE_PING_MS and MCP_SSE_KEEPALIVE_MS =`,
    `${r.pingMs}, stream lifetimes 1 h, session store raised). The client (this bench, one process) opens every stream on a`,
    `connection of its own, ${WAVE} at a time, and time-stamps every chunk; a stream is on time when no gap between its`,
    "first bytes, each keep-alive and the end of the hold exceeds the interval plus max(1 s, a quarter of it). RSS = Σ VmRSS of the",
    "server's process tree, read 0.5 s after each step (the GET streams open first, then the listens; the last reading is",
    "mid-hold); per stream = (with streams − with sessions) ÷ streams. RSS counts garbage the heap has not collected yet,",
    "so small runs (hundreds of streams) overstate it; read it from a 10,000-stream run. tools/call p50: the same request at c=1 on a",
    "keep-alive connection, just before the sessions were opened (after as long a warm-up) and in the middle of the hold; the client shares the two",
    "cores with the server and receives every keep-alive too, so the \"with streams\" p50 includes that load.",
    `The floor row opens the same number of streams on \`${FLOOR_STREAMS_SERVER}\`, a twin process of the same build and settings, after ours`,
    "are closed, in one pass from the RSS after its warm-up, as ours. Each is a route handler that holds an SSE response open",
    "and pings, nothing else. Where it misses 16 KiB, no stream served through this framework's route handlers can meet it",
    "(bench/PROFILING.md round 9: what Next keeps per open response; `node bench/stream-heap/run.mjs` reads the live heap per",
    "stream of each kind, this floor included, after full collections, which RSS cannot).",
  ];
}
