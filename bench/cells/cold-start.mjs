/** Cold start and memory: fresh servers timed from spawn() to their first good answer, then their RSS. */
import http from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { closedLoop } from "../closed-loop.mjs";
import { CEILING_PATH, CONFIG, HOST, MCP_PATH } from "../config.mjs";
import { fmt, median } from "../report/stats.mjs";
import { checkWorld, TARGET_WORLD_ID } from "../seed-data.mjs";
import { devToken } from "../servers/auth-keys.mjs";
import { serverEnv } from "../servers/catalog.mjs";
import { freePort, spawnServer, stopServer, transient, writeProfileSidecar } from "../servers/lifecycle.mjs";
import { decodeAnswer, ERAS, openSession, request, rpc, sleep, stubSession } from "./client.mjs";
import { monotonicUs } from "./http-cell.mjs";
import { treeCpuMs, treeRssKb } from "./proc.mjs";
import { hasResult, isToolList, isToolResult, SUGGEST_NAMES, toolCall } from "./systems.mjs";

/** What a cold-started process must answer first: the ceiling, or a tools/list (2026-07-28: no handshake). */
export const COLD_PROBES = {
  ceiling: { path: CEILING_PATH, body: rpc("tools/list"), headers: stubSession(), check: hasResult, label: "spawn → first good POST /api/ceiling" },
  "tools/list": { path: MCP_PATH, body: ERAS[1].body("tools/list"), headers: ERAS[1].headers("tools/list"), check: isToolList, label: "spawn → first good tools/list (2026-07-28) on /api/mcp" },
};

/** c for the memory warm-up loads. */
export const RSS_WARMUP_CONCURRENCY = 8;

/** Closed-loop load on a transient server: `requests` share `seconds`; any wrong answer throws. */
export async function loadServer(server, seconds, requests) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: RSS_WARMUP_CONCURRENCY });
  try {
    for (const r of requests) {
      let id = 1;
      const cell = await closedLoop({
        concurrency: RSS_WARMUP_CONCURRENCY,
        seconds: seconds / requests.length,
        call: async () => {
          const res = await request(agent, server, r.path, r.body(id++), r.headers);
          return res.status === 200 && r.check(decodeAnswer(res).json) ? undefined : `HTTP ${res.status}: ${res.body.slice(0, 200)}`;
        },
      });
      if (cell.errors > 0) throw new Error(`warm-up of ${server.key} (${r.name}): ${cell.errors} errors, first: ${cell.firstError}`);
    }
  } finally {
    agent.destroy();
  }
}

/** The memory warm-up: the ceiling alone, or our server's tools/list and tools/call in both eras. */
export async function warmForMemory(kind, server) {
  if (kind === "ceiling") {
    await loadServer(server, CONFIG.rssWarmupSeconds, [{ name: "ceiling", ...COLD_PROBES.ceiling }]);
    return;
  }
  const session = await openSession(server);
  const modern = ERAS[1];
  await loadServer(server, CONFIG.rssWarmupSeconds, [
    { name: "tools/list", path: MCP_PATH, body: rpc("tools/list"), headers: session, check: isToolList },
    { name: "tools/call", path: MCP_PATH, body: rpc("tools/call", SUGGEST_NAMES), headers: session, check: isToolResult() },
    { name: "tools/list@2026", path: MCP_PATH, body: modern.body("tools/list"), headers: modern.headers("tools/list"), check: isToolList },
    { name: "tools/call@2026", path: MCP_PATH, body: modern.body("tools/call", SUGGEST_NAMES), headers: modern.headers("tools/call", SUGGEST_NAMES.name), check: isToolResult() },
  ]);
}

/**
 * One fresh `next start` (the main server's settings): ms from spawn() to its first good answer
 * of `kind`, polled every 5 ms, the CPU its process tree had used by then, and its VmRSS after the
 * memory warm-up. The CPU leaves out what the wall time also counts but neither process controls
 * (the machine's other work, waits on the disk), so its ratio is the steadier view.
 */
export async function coldStart(kind, index, context) {
  const key = `cold-${kind.replace("/", "-")}-${index + 1}`;
  const port = await freePort();
  const env = serverEnv("main", port, context);
  const probe = COLD_PROBES[kind];
  const t0 = performance.now();
  const server = spawnServer(key, { runtime: "next", env, port, context, profile: false });
  transient.add(server);
  try {
    const deadline = t0 + 60_000;
    for (;;) {
      if (server.exited) throw new Error(`${key} exited early:\n${server.log.slice(-10).join("\n")}`);
      try {
        const res = await request(undefined, server, probe.path, probe.body(1), probe.headers);
        if (res.status === 200 && probe.check(decodeAnswer(res).json)) break;
      } catch {
        // not listening yet
      }
      if (performance.now() > deadline) throw new Error(`${key}: no good answer after 60 s:\n${server.log.slice(-10).join("\n")}`);
      await sleep(5);
    }
    const startMs = performance.now() - t0;
    const cpuMs = treeCpuMs(server.pid);
    await warmForMemory(kind, server);
    return { startMs, cpuMs, rssKb: treeRssKb(server.pid) };
  } finally {
    await stopServer(server);
    transient.delete(server);
  }
}

/** BENCH_COLD_STARTS of each kind, alternating which goes first; never fails the run. */
export async function measureColdStarts(context) {
  const runs = { ceiling: [], "tools/list": [] };
  try {
    for (let i = 0; i < CONFIG.coldStarts; i++) {
      for (const kind of i % 2 === 0 ? ["ceiling", "tools/list"] : ["tools/list", "ceiling"]) {
        const r = await coldStart(kind, i, context);
        runs[kind].push(r);
        console.log(`[bench] cold start ${i + 1}/${CONFIG.coldStarts} ${kind.padEnd(10)} ${fmt(r.startMs)} ms to the first good answer (${fmt(r.cpuMs)} ms CPU), RSS ${fmt(r.rssKb / 1024, 1)} MiB after warm-up`);
      }
    }
    return { runs };
  } catch (err) {
    console.error(`[bench] cold starts failed: ${err?.message ?? err}`);
    return { runs, error: String(err?.message ?? err).split("\n")[0] };
  }
}

/** Warm get_world calls timed after the first, for the cold-vs-warm comparison. */
export const WARM_CALLS = 20;

/** Resolves once something accepts TCP connections on `port` (the server listens), polling every 5 ms. */
async function listening(server, deadline) {
  for (;;) {
    if (server.exited) throw new Error(`${server.key} exited early:\n${server.log.slice(-10).join("\n")}`);
    const ok = await new Promise((resolve) => {
      const socket = net.connect(server.port, HOST, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    if (performance.now() > deadline) throw new Error(`${server.key}: not listening after 60 s`);
    await sleep(5);
  }
}

/**
 * The first data tool call after a cold start: a fresh `next start` (main's settings, PostgreSQL),
 * and as soon as it listens, a 2026-07-28 get_world with a token — its latency is the first call's
 * (route module loaded, Prisma client and pool opened, the statement prepared) — then WARM_CALLS
 * more on the same process, whose median is the warm call. `afterList`: an anonymous tools/list
 * first (timed too), so the get_world after it is the first *data* call on a loaded route.
 * `ceiling`: the bare route instead of get_world, first and warm: the framework's own first-request
 * cost, the floor under A.
 */
export async function firstDataCall(index, context, afterList, ceiling = false) {
  const key = `cold-${ceiling ? "ceiling" : "get-world"}-${afterList ? "after-list-" : ""}${index + 1}`;
  const port = await freePort();
  const modern = ERAS[1];
  const call = toolCall("get_world", { worldId: TARGET_WORLD_ID });
  const check = isToolResult((s) => checkWorld(s.world));
  const t0 = performance.now();
  // BENCH_CPU_PROF=1: the first index of each kind is profiled, with its first request's window
  // (bench/profile-top.mjs --system first-request: what that request cost, by function).
  const profile = CONFIG.cpuProf && index === 0;
  const server = spawnServer(key, { runtime: "next", env: serverEnv("main", port, context), port, context, profile });
  transient.add(server);
  try {
    await listening(server, t0 + 60_000);
    const listenMs = performance.now() - t0;
    const headers = { ...modern.headers("tools/call", "get_world"), authorization: `Bearer ${await devToken(port)}` };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const timed = async (id) => {
      const start = performance.now();
      const res = ceiling
        ? await request(agent, server, CEILING_PATH, modern.body("tools/list")(id), modern.headers("tools/list"))
        : await request(agent, server, MCP_PATH, modern.body("tools/call", call)(id), headers);
      const ms = performance.now() - start;
      if (ceiling) {
        if (res.status !== 200) throw new Error(`${key}: the ceiling answered HTTP ${res.status}`);
        return ms;
      }
      if (res.status !== 200 || !check(decodeAnswer(res).json)) throw new Error(`${key}: get_world answered HTTP ${res.status}: ${res.body.slice(0, 200)}`);
      return ms;
    };
    try {
      let listMs;
      if (afterList) {
        const start = performance.now();
        const res = await request(agent, server, MCP_PATH, modern.body("tools/list")(1), modern.headers("tools/list"));
        listMs = performance.now() - start;
        if (res.status !== 200 || !isToolList(decodeAnswer(res).json)) throw new Error(`${key}: tools/list answered HTTP ${res.status}: ${res.body.slice(0, 200)}`);
      }
      const firstStartUs = monotonicUs();
      const firstMs = await timed(1);
      if (profile) server.windows.push({ system: "first-request", concurrency: 1, round: 0, startUs: firstStartUs, endUs: monotonicUs(), requests: 1 });
      const warm = [];
      for (let i = 0; i < WARM_CALLS; i++) warm.push(await timed(i + 2));
      return { listenMs, listMs, firstMs, warmMs: median(warm) };
    } finally {
      agent.destroy();
    }
  } finally {
    await stopServer(server);
    transient.delete(server);
    if (profile) writeProfileSidecar(server);
  }
}

/** BENCH_COLD_STARTS first data calls of each kind (get_world first; after a tools/list); never fails the run. */
export async function measureFirstDataCalls(context) {
  const runs = [];
  const afterList = [];
  const ceilingFirst = [];
  try {
    for (let i = 0; i < CONFIG.coldStarts; i++) {
      const r = await firstDataCall(i, context, false);
      runs.push(r);
      const l = await firstDataCall(i, context, true);
      afterList.push(l);
      const c = await firstDataCall(i, context, false, true);
      ceilingFirst.push(c);
      console.log(`[bench] ceiling as the first request ${i + 1}/${CONFIG.coldStarts}: ${fmt(c.firstMs, 1)} ms, warm ${fmt(c.warmMs, 2)} ms`);
      console.log(`[bench] first data call ${i + 1}/${CONFIG.coldStarts}: listening after ${fmt(r.listenMs)} ms, first request get_world ${fmt(r.firstMs, 1)} ms; after a first tools/list (${fmt(l.listMs, 1)} ms) get_world ${fmt(l.firstMs, 1)} ms; warm ${fmt(r.warmMs, 1)} / ${fmt(l.warmMs, 1)} ms`);
    }
    return { runs, afterList, ceilingFirst };
  } catch (err) {
    console.error(`[bench] first data calls failed: ${err?.message ?? err}`);
    return { runs, error: String(err?.message ?? err).split("\n")[0] };
  }
}
