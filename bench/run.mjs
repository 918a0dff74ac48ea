#!/usr/bin/env node
/**
 * Throughput/latency/CPU benchmark of the MCP endpoint against the framework's ceiling.
 *
 *   npm run bench                         # defaults: 5 rounds x 4 s per cell, c = 1 and 32
 *   BENCH_SECONDS=2 BENCH_ROUNDS=3 npm run bench
 *   BENCH_CPU_PROF=1 BENCH_SYSTEMS=tools/call npm run bench
 *                                         # server .cpuprofile in bench/.work/profiles (bench/profile-top.mjs)
 *
 * Method (why it is built this way):
 * - One `next start` production server on 127.0.0.1, started as `node …/next start` (not `npx`) so
 *   the spawned pid *is* the server; CPU is still summed over its whole process tree in case a
 *   future Next spawns workers.
 * - The systems (ceiling, tools/list, tools/call) are measured in interleaved rounds, with the
 *   order rotated every round, so drift and noise (thermal, neighbours, GC) hit all of them alike.
 * - Closed-loop load: `c` workers each keep exactly one request in flight over a keep-alive
 *   node:http Agent with maxSockets = c (lowest client overhead; connections opened before timing).
 * - Server CPU per request = Δ(utime+stime) from /proc/<pid>/stat over the cell / requests done.
 *   It is the number that does not depend on how much CPU the client steals on a small machine.
 * - Every response must be HTTP 200 with a JSON body that has `result` (and, for tools/call, no
 *   `isError`); anything else is counted and flags the run.
 */
import http from "node:http";
import net from "node:net";
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOST = "127.0.0.1"; // never anything else: this tool must not load a remote machine

// ---------------------------------------------------------------------------------------------
// Configuration (env). Defaults: 6 systems x 2 concurrencies x 5 rounds x 4 s = 120 s measured,
// plus warm-up and start-up: about 2.5 minutes.
// ---------------------------------------------------------------------------------------------
function envNumber(name, fallback, { min = 0, integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a${integer ? "n integer" : " number"} >= ${min}, got "${raw}"`);
  }
  return value;
}

const CONFIG = {
  seconds: envNumber("BENCH_SECONDS", 4, { min: 0.1 }),
  rounds: envNumber("BENCH_ROUNDS", 5, { min: 1, integer: true }),
  warmupSeconds: envNumber("BENCH_WARMUP_SECONDS", 2, { min: 0 }),
  concurrencies: (process.env.BENCH_CONCURRENCY ?? "1,32").split(",").map((s) => {
    const c = Number(s.trim());
    if (!Number.isInteger(c) || c < 1) throw new Error(`BENCH_CONCURRENCY: bad value "${s}"`);
    return c;
  }),
  // Subset of systems, e.g. "tools/call" alone for a clean profile; ratios need "ceiling" in it.
  systems: process.env.BENCH_SYSTEMS ? process.env.BENCH_SYSTEMS.split(",").map((s) => s.trim()) : undefined,
  cpuProf: process.env.BENCH_CPU_PROF === "1",
  // Same variable next.config.ts reads: a private build survives someone else rebuilding .next.
  // (Note: `next build` into a new dir adds "<dir>/types/**/*.ts" to tsconfig.json's include.)
  distDir: process.env.NEXT_DIST_DIR || ".next",
  out: path.resolve(ROOT, process.env.BENCH_OUT ?? "bench/RESULTS.md"),
};

// Profile mode: <name>.cpuprofile (written by the server at exit) + <name>.json (how many requests
// it served), so bench/profile-top.mjs can report microseconds per request.
const PROFILE_DIR = path.join(ROOT, "bench", ".work", "profiles");
const PROFILE_NAME = `${new Date().toISOString().replace(/[:.]/g, "-")}_${(CONFIG.systems ?? ["all"]).join("+").replace(/\//g, "-")}`;

const PROTOCOL_VERSION = "2025-11-25";
const MCP_PATH = "/api/mcp";
const CEILING_PATH = "/api/ceiling";

// ---------------------------------------------------------------------------------------------
// Server lifecycle
// ---------------------------------------------------------------------------------------------
let server; // { child, pid, port, log: string[] }

function ensureBuild() {
  const buildId = path.join(ROOT, CONFIG.distDir, "BUILD_ID");
  if (!fs.existsSync(buildId)) {
    console.log(`[bench] ${path.relative(ROOT, buildId)} missing: running next build`);
    const r = spawnSync("npx", ["next", "build"], { cwd: ROOT, stdio: "inherit", env: process.env });
    if (r.status !== 0) throw new Error(`next build failed (exit ${r.status})`);
    return [];
  }
  // The build is what gets measured; say so when sources changed after it (others edit lib/).
  const builtAt = fs.statSync(buildId).mtimeMs;
  const newer = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && fs.statSync(path.join(ROOT, rel)).mtimeMs > builtAt) newer.push(rel);
    }
  };
  for (const dir of ["lib", "app"]) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  if (newer.length > 0) {
    console.warn(`[bench] warning: ${newer.length} source file(s) changed after the build (${newer.slice(0, 3).join(", ")}…); measuring the existing build`);
  }
  return newer;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const port = await freePort();
  const nextBin = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
  const nodeArgs = [];
  if (CONFIG.cpuProf) {
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${PROFILE_NAME}.cpuprofile`);
  }
  const child = spawn(process.execPath, [...nodeArgs, nextBin, "start", "-H", HOST, "-p", String(port)], {
    cwd: ROOT,
    // detached: its own process group, so cleanup can signal the server and anything it spawned.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production", MCP_LOG_REQUESTS: "0", MCP_SESSION_MODE: "stateful", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const log = [];
  const keep = (chunk) => {
    // Keep the tail only, for diagnostics; reading also stops a full pipe from stalling the server.
    log.push(...chunk.toString().split("\n").filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  server = { child, pid: child.pid, port, log, exited: false };
  child.on("exit", () => (server.exited = true));
  child.on("error", (err) => {
    log.push(`spawn error: ${err.message}`);
    server.exited = true;
  });

  // Ready = the ceiling route answers 200 (also loads that route's bundle).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exited) throw new Error(`next start exited early:\n${log.join("\n")}`);
    try {
      const r = await request(undefined, CEILING_PATH, "{}", {});
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`next start not ready after 60 s:\n${log.join("\n")}`);
    await sleep(100);
  }
}

/** Stop the server: SIGTERM to its process group, SIGKILL if it lingers (profiles need a clean exit). */
async function stopServer() {
  if (!server || server.exited) return;
  const group = -server.pid;
  try {
    process.kill(group, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (!server.exited && Date.now() < deadline) await sleep(100);
  if (!server.exited) {
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

// Last resort if we die abruptly: synchronous kill of the server's group.
process.on("exit", () => {
  if (server && !server.exited) {
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.error(`[bench] ${signal}: stopping server`);
    stopServer().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// /proc: server CPU time and machine description
// ---------------------------------------------------------------------------------------------
const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** { ppid, ticks: utime+stime } of one pid; the comm field may contain spaces and parentheses. */
function readStat(pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After "pid (comm) ": state ppid … ; utime and stime are fields 14 and 15 of the full line.
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** CPU milliseconds consumed so far by the server and all its descendants. */
function serverCpuMs() {
  const stats = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.set(Number(name), readStat(name));
    } catch {
      // process vanished while scanning
    }
  }
  let ticks = 0;
  const tree = new Set([server.pid]);
  // Parents can have higher pids than children after pid wrap-around: iterate to a fixed point.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of stats) {
      if (!tree.has(pid) && tree.has(s.ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of tree) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / CLK_TCK;
}

function machine() {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  let nextVersion = "unknown";
  try {
    nextVersion = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/next/package.json"), "utf8")).version;
  } catch {
    // leave unknown
  }
  return { model, cores: os.availableParallelism?.() ?? os.cpus().length, node: process.version, next: nextVersion, kernel: os.release() };
}

// ---------------------------------------------------------------------------------------------
// HTTP client
// ---------------------------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let requestsServed = 0; // every answered request of the run, warm-up included (normalizes profiles)

/** One POST; resolves with status, headers and the body text. `agent` undefined = no keep-alive. */
function request(agent, urlPath, body, headers) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = http.request(
      {
        host: HOST,
        port: server.port,
        path: urlPath,
        method: "POST",
        agent: agent ?? false,
        headers: { "content-type": "application/json", "content-length": payload.length, ...headers },
      },
      (res) => {
        requestsServed++;
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const ACCEPT = "application/json, text/event-stream";

/** initialize + notifications/initialized; returns the headers every later request carries. */
async function openSession() {
  const init = await request(undefined, MCP_PATH, JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  }), { accept: ACCEPT });
  const sessionId = init.headers["mcp-session-id"];
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: HTTP ${init.status} ${init.body.slice(0, 300)}`);
  const headers = { accept: ACCEPT, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
  const ack = await request(undefined, MCP_PATH, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
  if (ack.status !== 202) throw new Error(`notifications/initialized: expected 202, got ${ack.status} ${ack.body.slice(0, 300)}`);
  return headers;
}

// ---------------------------------------------------------------------------------------------
// The systems under test. Each builds its body per request (fresh JSON-RPC id) and checks the answer.
// All carry the same session headers so only the route differs, not the request the server parses.
// ---------------------------------------------------------------------------------------------
function defineSystems() {
  const listBody = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`;
  const callBody = (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"suggest_names","arguments":{"style":"elvish","count":3}}}`;
  const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
  const modernList = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{${modernMeta}}}`;
  const modernCall = (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"suggest_names","arguments":{"style":"elvish","count":3},${modernMeta}}}`;
  const modernHeaders = (method, name) => ({
    accept: ACCEPT,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
  });
  const hasResult = (json) => json !== null && typeof json === "object" && json.result !== null && typeof json.result === "object";
  const all = [
    // Same bytes as a tools/list request, sent to the bare route: what Next alone costs.
    { name: "ceiling", path: CEILING_PATH, body: listBody, check: hasResult },
    // The bare route that also reads the body: the floor for any endpoint that must parse a POST.
    { name: "ceiling+body", path: `${CEILING_PATH}/read-body`, body: listBody, check: hasResult },
    { name: "tools/list", path: MCP_PATH, body: listBody, check: (j) => hasResult(j) && Array.isArray(j.result.tools) },
    { name: "tools/call", path: MCP_PATH, body: callBody, check: (j) => hasResult(j) && j.result.isError !== true },
    // The same calls in the 2026-07-28 era: no session, everything in _meta and the Mcp-* headers.
    { name: "tools/list@2026", path: MCP_PATH, body: modernList, headers: modernHeaders("tools/list"), check: (j) => hasResult(j) && Array.isArray(j.result.tools) },
    { name: "tools/call@2026", path: MCP_PATH, body: modernCall, headers: modernHeaders("tools/call", "suggest_names"), check: (j) => hasResult(j) && j.result.isError !== true },
  ];
  if (!CONFIG.systems) return all;
  const unknown = CONFIG.systems.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`BENCH_SYSTEMS: unknown ${unknown.join(", ")} (known: ${all.map((s) => s.name).join(", ")})`);
  return all.filter((s) => CONFIG.systems.includes(s.name));
}

/** Closed-loop load for `seconds`: returns counts, latencies (ms), wall time and server CPU. */
async function runCell(system, agent, concurrency, seconds, headers) {
  const latencies = [];
  let ok = 0;
  let errors = 0;
  let firstError;
  let nextId = 1;
  const fail = (why) => {
    errors++;
    firstError ??= why;
  };

  const cpu0 = serverCpuMs();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        const res = await request(agent, system.path, system.body(nextId++), system.headers ?? headers);
        latencies.push(performance.now() - start);
        let json = null;
        try {
          json = JSON.parse(res.body);
        } catch {
          // not JSON (e.g. an SSE answer): counted below
        }
        if (res.status === 200 && system.check(json)) ok++;
        else fail(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
      } catch (err) {
        fail(String(err?.message ?? err));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - t0;
  const serverMs = serverCpuMs() - cpu0;
  const client = process.cpuUsage(client0);
  return { ok, errors, firstError, latencies, wallMs, serverMs, clientMs: (client.user + client.system) / 1000 };
}

/** A keep-alive agent with `concurrency` sockets already connected, so no cell pays for connects. */
async function primedAgent(concurrency, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  await Promise.all(Array.from({ length: concurrency }, () => request(agent, CEILING_PATH, "{}", headers)));
  return agent;
}

// ---------------------------------------------------------------------------------------------
// Statistics and report
// ---------------------------------------------------------------------------------------------
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a");

function summarize(systems, cells) {
  const rows = [];
  for (const c of CONFIG.concurrencies) {
    const byName = new Map();
    for (const s of systems) {
      const runs = cells.filter((x) => x.system === s.name && x.concurrency === c);
      const requests = runs.reduce((a, r) => a + r.ok + r.errors, 0);
      const wallMs = runs.reduce((a, r) => a + r.wallMs, 0);
      const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
      byName.set(s.name, {
        system: s.name,
        concurrency: c,
        rps: (requests / wallMs) * 1000,
        roundRps: runs.map((r) => ((r.ok + r.errors) / r.wallMs) * 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpuPerReq: runs.reduce((a, r) => a + r.serverMs, 0) / requests,
        clientCpuPerReq: runs.reduce((a, r) => a + r.clientMs, 0) / requests,
        requests,
        errors: runs.reduce((a, r) => a + r.errors, 0),
        firstError: runs.find((r) => r.firstError)?.firstError,
      });
    }
    const ceiling = byName.get("ceiling");
    const ceilingBody = byName.get("ceiling+body");
    for (const row of byName.values()) {
      if (ceilingBody) row.ratioBody = row.rps / ceilingBody.rps;
      if (ceiling) {
        row.ratio = row.rps / ceiling.rps;
        // Per-round ratios (same round = same machine conditions): their median resists a noisy
        // round (other work on the machine), their spread shows how much to trust the aggregate.
        const perRound = row.roundRps.map((r, i) => r / ceiling.roundRps[i]).sort((a, b) => a - b);
        row.ratioMedian = percentile(perRound, 50);
        row.ratioMin = perRound[0];
        row.ratioMax = perRound[perRound.length - 1];
        row.cpuRatio = row.cpuPerReq / ceiling.cpuPerReq;
      }
      rows.push(row);
    }
  }
  return rows;
}

function renderMarkdown(rows, meta) {
  const lines = [];
  lines.push("# MCP endpoint benchmark");
  lines.push("");
  lines.push(`- Date: ${meta.date}`);
  lines.push(`- Node ${meta.machine.node}, Next.js ${meta.machine.next}, Linux ${meta.machine.kernel}`);
  lines.push(`- CPU: ${meta.machine.model}, ${meta.machine.cores} core(s) (client and server share them)`);
  lines.push(`- Build: \`${CONFIG.distDir}\` (BUILD_ID ${meta.buildId}), \`next start\` on ${HOST}, MCP_SESSION_MODE=stateful, MCP_LOG_REQUESTS=0${CONFIG.cpuProf ? ", **--cpu-prof on (numbers inflated)**" : ""}`);
  if (meta.staleFiles.length > 0) {
    lines.push(`- **Stale build**: ${meta.staleFiles.length} file(s) under lib/ or app/ changed after it (e.g. ${meta.staleFiles.slice(0, 3).join(", ")})`);
  }
  lines.push(`- Machine load average (1 min) at start: ${meta.loadavg} — other work on the machine shows up as round-to-round spread`);
  lines.push(`- Load: ${CONFIG.rounds} rounds x ${CONFIG.seconds} s per cell, systems interleaved (order rotated each round), ${CONFIG.warmupSeconds} s warm-up per cell before round 1`);
  lines.push("");
  lines.push("| system | c | req/s | vs ceiling | per-round median [min–max] | vs ceiling+body | p50 ms | p99 ms | server CPU ms/req | CPU vs ceiling | client CPU ms/req | requests | errors |");
  lines.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const r of rows) {
    const ratio = r.system === "ceiling" ? "1.00x" : `**${fmt(r.ratio, 2)}x**`;
    const spread = r.system === "ceiling" ? "" : `${fmt(r.ratioMedian, 2)} [${fmt(r.ratioMin, 2)}–${fmt(r.ratioMax, 2)}]`;
    const errors = r.errors > 0 ? `**${r.errors} ⚠**` : "0";
    lines.push(
      `| ${r.system} | ${r.concurrency} | ${fmt(r.rps)} | ${ratio} | ${spread} | ${r.ratioBody === undefined ? "" : `${fmt(r.ratioBody, 2)}x`} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${fmt(r.cpuRatio, 2)}x | ${fmt(r.clientCpuPerReq, 3)} | ${fmt(r.requests)} | ${errors} |`,
    );
  }
  lines.push("");
  const flagged = rows.filter((r) => r.errors > 0);
  if (flagged.length > 0) {
    lines.push("**This run had errors; its numbers are not valid.**");
    for (const r of flagged) lines.push(`- ${r.system} c=${r.concurrency}: ${r.errors} errors, first: \`${String(r.firstError).replace(/`/g, "'")}\``);
    lines.push("");
  }
  lines.push("Method: closed loop, c workers each keeping one request in flight over a keep-alive `node:http` Agent");
  lines.push("(maxSockets = c, sockets connected before timing). req/s = requests / wall time summed over rounds;");
  lines.push("\"vs ceiling\" = req/s ÷ ceiling req/s at the same c; per-round = the same ratio within each round.");
  lines.push("Latency percentiles are over every request of all rounds. Server CPU = Δ utime+stime of the");
  lines.push("`next start` process tree (/proc/<pid>/stat) ÷ requests. The ceiling is `POST /api/ceiling`");
  lines.push("(a bare route returning a fixed JSON body) sent the same bytes and headers as tools/list. It never");
  lines.push("reads the request body, which any JSON-RPC route must do; `ceiling+body` (`POST /api/ceiling/read-body`)");
  lines.push("is the same route plus `await request.text()`, and \"vs ceiling+body\" is the ratio to it.");
  lines.push("Every response must be HTTP 200 with a JSON `result` (tools/call: not `isError`).");
  lines.push("The server is one Node process, so once it saturates a core req/s ≈ 1 / server CPU per request:");
  lines.push("the CPU column is the noise-resistant view of the same ratio.");
  lines.push("Reproduce: `npm run build && npm run bench` (env: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_CONCURRENCY, BENCH_SYSTEMS).");
  lines.push("");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------
async function main() {
  const loadavg = os.loadavg()[0].toFixed(2);
  const staleFiles = ensureBuild();
  const buildId = fs.readFileSync(path.join(ROOT, CONFIG.distDir, "BUILD_ID"), "utf8").trim();
  await startServer();
  console.log(`[bench] next start ready on ${HOST}:${server.port} (pid ${server.pid})`);
  const headers = await openSession();
  console.log(`[bench] session ${headers["mcp-session-id"]}`);

  const systems = defineSystems();
  const cells = [];
  const estimate = CONFIG.concurrencies.length * systems.length * (CONFIG.rounds * CONFIG.seconds + CONFIG.warmupSeconds);
  console.log(`[bench] ${CONFIG.rounds} rounds x ${CONFIG.seconds} s, c=${CONFIG.concurrencies.join(",")}: ~${Math.round(estimate)} s`);

  // Warm-up: JIT, route bundles and connection pools reach steady state before anything counts.
  if (CONFIG.warmupSeconds > 0) {
    for (const c of CONFIG.concurrencies) {
      const agent = await primedAgent(c, headers);
      for (const s of systems) {
        const w = await runCell(s, agent, c, CONFIG.warmupSeconds, headers);
        if (w.errors > 0) throw new Error(`warm-up ${s.name} c=${c}: ${w.errors} errors, first: ${w.firstError}`);
      }
      agent.destroy();
    }
  }

  for (let round = 0; round < CONFIG.rounds; round++) {
    // Rotate the order so no system always runs first (or right after the heaviest one).
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const c of CONFIG.concurrencies) {
      // A fresh, primed agent per block: idle keep-alive sockets from long ago may have been closed by the server.
      const agent = await primedAgent(c, headers);
      for (const s of order) {
        const r = await runCell(s, agent, c, CONFIG.seconds, headers);
        cells.push({ system: s.name, concurrency: c, round, ...r });
        const rps = ((r.ok + r.errors) / r.wallMs) * 1000;
        console.log(
          `[bench] round ${round + 1}/${CONFIG.rounds} c=${String(c).padStart(2)} ${s.name.padEnd(10)} ${fmt(rps).padStart(7)} req/s  server ${fmt(r.serverMs / (r.ok + r.errors), 3)} ms/req${r.errors ? `  ${r.errors} ERRORS` : ""}`,
        );
      }
      agent.destroy();
    }
  }

  const rows = summarize(systems, cells);
  const markdown = renderMarkdown(rows, { date: new Date().toISOString(), machine: machine(), buildId, loadavg, staleFiles });
  console.log(`\n${markdown}`);
  fs.writeFileSync(CONFIG.out, markdown);
  console.log(`[bench] wrote ${path.relative(ROOT, CONFIG.out)}`);
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  console.error(`[bench] failed: ${err?.stack ?? err}`);
  if (server?.log.length) console.error(`[bench] server log tail:\n${server.log.slice(-20).join("\n")}`);
} finally {
  await stopServer();
  if (CONFIG.cpuProf) {
    const base = path.join(PROFILE_DIR, PROFILE_NAME);
    fs.writeFileSync(`${base}.json`, JSON.stringify({ systems: CONFIG.systems ?? "all", requests: requestsServed }, null, 2));
    console.log(`[bench] profile: ${path.relative(ROOT, base)}.cpuprofile (${requestsServed} requests); node bench/profile-top.mjs ${path.relative(ROOT, base)}.cpuprofile`);
  }
}
process.exit(exitCode);
