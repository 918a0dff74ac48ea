#!/usr/bin/env node
/**
 * Throughput/latency/CPU benchmark of the MCP endpoint against the framework's ceiling.
 *
 *   npm run bench                         # defaults: 5 rounds x 4 s per cell, c = 1 and 32
 *   BENCH_SECONDS=2 BENCH_ROUNDS=3 npm run bench
 *   BENCH_CPU_PROF=1 BENCH_SYSTEMS=tools/call npm run bench
 *                                         # server .cpuprofile in bench/.work/profiles (bench/profile-top.mjs)
 *   BENCH_SYSTEMS='ceiling,*pg' BENCH_SECONDS=1 BENCH_ROUNDS=1 npm run bench
 *                                         # a quick look at PostgreSQL alone (`*` matches any text)
 *   BENCH_SYSTEMS='tools/call*' npm run bench
 *                                         # the rate limiter's cost: tools/call with limits off,
 *                                         # in memory and in Redis (BENCH_REDIS_URL)
 *   BENCH_SYSTEMS='tools/*,mcp-handler*' npm run bench
 *                                         # ours against Vercel's mcp-handler
 *   BENCH_SYSTEMS='ceiling,node:http*,cold-start' npm run bench
 *                                         # the core on plain node:http; cold start and memory
 *
 * Method (why it is built this way):
 * - `next start` production servers on 127.0.0.1, started as `node scripts/start.mjs` (what
 *   `npm start` runs: `next start` in that process with Node 22's stream buffers; not npm) so
 *   the spawned pid *is* the server; CPU is still summed over its whole process tree in case a
 *   future Next spawns workers. The main server answers the framework rows and the PostgreSQL
 *   rows (…/pg; DATABASE_URL = a fresh schema), so the ceiling and get_world/pg are measured on
 *   one process; a second one answers the PGlite rows (…/pglite; PGLITE_DATA_DIR = a temporary
 *   folder). Both databases are migrated and seeded with the same rows before any timing
 *   (bench/databases.mjs, bench/seed-data.mjs). Both run with rate limits off (MCP_RATE_LIMITS=0):
 *   no row spends a budget, and tools/call there is the "limits off" reference.
 * - The limiter's cost: two more servers, twins of the main one (same schema) with the limiter on,
 *   `limits-memory` (in process) and `limits-redis` (REDIS_URL = BENCH_REDIS_URL), budgets far above
 *   anything a run sends and failing closed, so a store problem is an error, never a silent pass.
 *   They answer tools/call+limits:memory and tools/call+limits:redis, the same request as tools/call.
 * - The "direct Prisma" rows (prisma:…) time the data-layer calls behind get_world and
 *   list_worlds without HTTP or MCP, in a child process per database (bench/db-worker.mjs).
 * - All systems are measured in interleaved rounds, with the order rotated every round, so drift
 *   and noise (thermal, neighbours, GC) hit all of them alike.
 * - Closed-loop load: `c` workers each keep exactly one request in flight over a keep-alive
 *   node:http Agent with maxSockets = c (lowest client overhead; connections opened before timing).
 * - Server CPU per request = Δ(utime+stime) from /proc/<pid>/stat over the cell / requests done.
 *   It is the number that does not depend on how much CPU the client steals on a small machine.
 * - Every response must be HTTP 200 with a JSON body that has `result` (and, for tools/call, no
 *   `isError`; get_world and list_worlds: the seeded records) and, from /api/mcp, the RateLimit-Limit
 *   its server's limiter sets (none with limits off); anything else is counted and flags the run.
 *   JSON answers are parsed and checked after their cell, not inside the timed loop: each is kept
 *   as its body minus this request's `"id":<n>` member (identical ones once, with a count), so every
 *   answer is still checked and the client's JSON.parse is not on the measured path.
 * - More MCP requests on the main server: server/discover (2026-07-28 only), create_world (a write
 *   on PostgreSQL, as a subject of its own so the read rows' data never changes), and
 *   draft_world_outline with `_meta.progressToken` (= the request id): the answer is an SSE stream
 *   of 10 notifications/progress then the result, read to its end and checked (10 progress events
 *   for this token, in order, then the result for this id). initialize (2025-11-25 only; its
 *   2026-07-28 counterpart is server/discover) opens a session per request, so it runs on a twin of
 *   the main server (`initialize`): the sessions it piles up (the store keeps 10,000, evicting the
 *   oldest) never evict the sessions the other rows use, nor sit in the main server's memory.
 * - Other stacks, each a process of its own so /proc gives its CPU: `mcp-handler` (Vercel's adapter
 *   on the v2 SDK) serving the same suggest_names tool in a minimal Next app the bench installs and
 *   builds in bench/.work/mcp-handler/<hash of versions and sources> (bench/mcp-handler-app.mjs;
 *   cached between runs; if the install or build fails, e.g. offline, its rows are skipped with the
 *   reason), and plain `node:http` (bench/node-http-server.mjs): `node-raw` answers the ceiling's
 *   fixed JSON, `node-core` mounts the same MCP core (worldcrafterEndpoint(), via jiti from lib/)
 *   with a minimal Request/Response adapter.
 * - Cold start and memory (after the rounds): fresh `next start` processes, each timed from spawn()
 *   to its first good answer — POST /api/ceiling for one kind, a 2026-07-28 tools/list on /api/mcp
 *   for the other — BENCH_COLD_STARTS of each (default 5, alternating), median reported. After the
 *   first answer each process is warmed up (the ceiling-only process with the ceiling, ours with
 *   tools/list and tools/call in both eras) and the VmRSS of its process tree is read.
 * - A server is started only if a selected system needs it; whatever is started (servers, database
 *   schema and folder, the Redis connection) is undone at the end or on SIGINT/SIGTERM.
 * - RESULTS.md opens with the issue's targets (measured value, goal, pass/miss), then the tables.
 */
import http from "node:http";
import net from "node:net";
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";
import { closedLoop } from "./closed-loop.mjs";
import { databaseEnv, preparePglite, preparePostgres } from "./databases.mjs";
import { prepareRedis } from "./redis.mjs";
import { prepareMcpHandlerApp } from "./mcp-handler-app.mjs";
import { START_SCRIPT } from "../tests/support/next-server.mjs";
import { CHARACTERS_PER_WORLD, LIST_ARGS, LOCATIONS_PER_WORLD, TARGET_WORLD_ID, WORLD_COUNT, checkWorld, checkWorldPage } from "./seed-data.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOST = "127.0.0.1"; // never anything else: this tool must not load a remote machine

// ---------------------------------------------------------------------------------------------
// Configuration (env). Defaults: 39 systems x 2 concurrencies x 5 rounds x 4 s = 26 min measured,
// plus warm-up, database set-up, start-up and 2 x 5 cold starts: about 31 minutes (the first run
// also installs and builds the mcp-handler app, ~1 min). BENCH_SYSTEMS picks a subset.
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
  // `*` matches any text: "ceiling,*pg" is the ceiling and every PostgreSQL row.
  systems: process.env.BENCH_SYSTEMS ? process.env.BENCH_SYSTEMS.split(",").map((s) => s.trim()) : undefined,
  cpuProf: process.env.BENCH_CPU_PROF === "1",
  // Same variable next.config.ts reads: a private build survives someone else rebuilding .next.
  // (Note: `next build` into a new dir adds "<dir>/types/**/*.ts" to tsconfig.json's include.)
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The PostgreSQL database the bench makes its schema in (loopback only); as tests/support does.
  databaseUrl: process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test",
  // The Redis the limits-redis server counts in (loopback only). A database of its own (/15): the
  // bench's caller is the loopback address, as other local servers' anonymous callers are, and
  // its hundreds of thousands of requests must not spend their budgets (nor theirs ours).
  redisUrl: process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379/15",
  out: path.resolve(ROOT, process.env.BENCH_OUT ?? "bench/RESULTS.md"),
  // Cold starts of each kind (ceiling, tools/list); 0 = none. Selected like a system: "cold-start".
  coldStarts: envNumber("BENCH_COLD_STARTS", 5, { min: 0, integer: true }),
  // How long each cold-started process is loaded before its memory is read.
  rssWarmupSeconds: envNumber("BENCH_RSS_WARMUP_SECONDS", 4, { min: 0.5 }),
};

// Profile mode: <name>.cpuprofile (written by the server at exit) + <name>.json (how many requests
// it served, and each timed cell's window and request count), so bench/profile-top.mjs can report
// microseconds per request of one system's timed cells alone. One pair per server.
const PROFILE_DIR = path.join(ROOT, "bench", ".work", "profiles");
const PROFILE_NAME = `${new Date().toISOString().replace(/[:.]/g, "-")}_${(CONFIG.systems ?? ["all"]).join("+").replace(/[/*:]/g, "-")}`;

const PROTOCOL_VERSION = "2025-11-25";
const MCP_PATH = "/api/mcp";

// The development issuer the servers trust, in a folder of the bench's own (removed at the end).
const DEV_ISSUER_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "wc-bench-issuer-"));
const keyFile = await createJiti(import.meta.url).import("../lib/authorization-server/key-file.ts");

/**
 * The subjects the bench signs tokens for: `reader` owns the seeded worlds (the data rows read
 * them); `writer` is who create_world writes as, so the worlds it piles up are never in a read
 * row's results (every query filters by owner, on an index).
 */
const SUBJECTS = { reader: keyFile.DEV_SUBJECT, writer: "bench-writer" };

/** A token for the server on `port`, for `subject`. */
async function devToken(port, subject = SUBJECTS.reader) {
  const origin = `http://${HOST}:${port}`;
  return keyFile.signAccessToken(DEV_ISSUER_DIR, { issuer: origin, audience: `${origin}${MCP_PATH}`, subject, scopes: ["worlds:read", "worlds:write"], ttlSeconds: 24 * 3600 });
}

const CEILING_PATH = "/api/ceiling";
/** The bare route plus reading the body: the least a JSON-RPC route does (the targets' floor). */
const CEILING_BODY = "ceiling+body";
/** The row of a query timed alone in the db worker, no HTTP: "prisma:get_world/pg". */
const directRowName = (query, db) => `prisma:${query}/${db}`;

// ---------------------------------------------------------------------------------------------
// Clean-up: whatever is started registers how to undo it; undone in reverse order (servers stop
// before the databases they use are dropped), at the end or on a signal.
// ---------------------------------------------------------------------------------------------
const cleanups = [() => fs.rmSync(DEV_ISSUER_DIR, { recursive: true, force: true })];

async function cleanUp() {
  while (cleanups.length > 0) {
    const undo = cleanups.pop();
    try {
      await undo();
    } catch (err) {
      console.error(`[bench] clean-up: ${err?.message ?? err}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Server lifecycle
// ---------------------------------------------------------------------------------------------
/**
 * Running servers by key: { key, runtime, child, pid, port, log: string[], exited, served, budgets,
 * session (2025-11-25 headers, anonymous), identities: { reader|writer: { bearer, session } } }.
 */
const servers = new Map();
/** Short-lived servers (the cold starts): not in the report's server list, still killed on exit. */
const transient = new Set();

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

/**
 * How each kind of server is run. `mcp`: it is our MCP endpoint (sessions are opened on it, its
 * answers must carry its limiter's RateLimit-Limit); the others only need the ceiling route.
 * - next: the project's `npm start` (scripts/start.mjs: `next start` of the build in CONFIG.distDir).
 * - mcp-handler: `next start` of the app bench/mcp-handler-app.mjs built (in its own folder), through
 *   the same scripts/start.mjs (it resolves `next` from its working directory): both Next apps run
 *   with the same Node settings.
 * - node-raw / node-core: bench/node-http-server.mjs, the fixed JSON alone / plus the MCP core.
 */
const RUNTIMES = {
  next: { mcp: true, label: "`next start`", command: () => ({ script: START_SCRIPT, args: (port) => ["-H", HOST, "-p", String(port)], cwd: ROOT }) },
  "mcp-handler": {
    mcp: false,
    label: "`next start` of the mcp-handler app",
    command: (context) => ({ script: START_SCRIPT, args: (port) => ["-H", HOST, "-p", String(port)], cwd: context.mcpHandlerApp.dir }),
  },
  "node-raw": { mcp: false, label: "`node:http`", command: () => ({ script: path.join(ROOT, "bench", "node-http-server.mjs"), args: () => [], cwd: ROOT, env: { BENCH_NODE_MODE: "raw" } }) },
  "node-core": { mcp: true, label: "`node:http` + core", command: () => ({ script: path.join(ROOT, "bench", "node-http-server.mjs"), args: () => [], cwd: ROOT, env: { BENCH_NODE_MODE: "core" } }) },
};

/**
 * Spawns a server process (not yet ready). detached: its own process group, so clean-up can
 * signal it and anything it spawned. The caller registers it (servers map or a transient one).
 */
function spawnServer(key, { runtime, env, port, context, profile = true }) {
  const { script, args, cwd, env: runtimeEnv } = RUNTIMES[runtime].command(context);
  const nodeArgs = [];
  if (CONFIG.cpuProf && profile) {
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${PROFILE_NAME}_${key}.cpuprofile`);
  }
  const child = spawn(process.execPath, [...nodeArgs, script, ...args(port)], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, ...runtimeEnv, BENCH_NODE_HOST: HOST, BENCH_NODE_PORT: String(port) },
  });
  const log = [];
  const keep = (chunk) => {
    // Keep the tail only, for diagnostics; reading also stops a full pipe from stalling the server.
    log.push(...chunk.toString().split("\n").filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const server = { key, runtime, child, pid: child.pid, port, log, exited: false, served: 0, windows: [] };
  child.on("exit", () => (server.exited = true));
  child.on("error", (err) => {
    log.push(`spawn error: ${err.message}`);
    server.exited = true;
  });
  return server;
}

/**
 * The environment of server `key` on `port`: for our MCP servers the bench's settings (database,
 * limiter, auth with the development issuer); for the others only what production needs.
 */
function serverEnv(key, port, { databases, redis }) {
  const { db, limiter, runtime = "next" } = SERVERS[key];
  // MCP_BENCH_ROUTES: our build serves /api/ceiling(/read-body) only when asked (404 in production).
  const base = { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", MCP_BENCH_ROUTES: "1" };
  if (!RUNTIMES[runtime].mcp) {
    const { NEXT_DIST_DIR: _dist, ...inherited } = databaseEnv({});
    return { ...inherited, ...(runtime === "next" ? { NEXT_DIST_DIR: CONFIG.distDir } : {}), ...base };
  }
  return {
    ...limiterEnv(databaseEnv(databases.get(db).serverEnv), limiter, redis),
    ...base,
    MCP_LOG_REQUESTS: "0",
    MCP_SESSION_MODE: "stateful",
    // Tokens from the development issuer (the bench signs them with the same key); anonymous
    // callers still reach the open tools, so both kinds of tools/list can be measured.
    MCP_AUTH_MODE: "mixed",
    BETTER_AUTH_SECRET: "bench-only-better-auth-secret-0123456789abcdef",
    MCP_AUTH_KEYS_DIR: DEV_ISSUER_DIR,
    MCP_RESOURCE_URL: `http://${HOST}:${port}${MCP_PATH}`,
  };
}

/** Session-like headers for a server without sessions: the same header bytes a session row sends. */
const stubSession = () => ({ accept: ACCEPT, "mcp-session-id": randomUUID(), "mcp-protocol-version": PROTOCOL_VERSION });

/**
 * Starts server `key` and waits until it answers. Its limiter's budget per method (if it runs
 * one) is what its answers must carry. MCP servers get a token and a session per subject.
 */
async function startServer(key, context) {
  const { runtime = "next", limiter } = SERVERS[key];
  const port = await freePort();
  const server = spawnServer(key, { runtime, env: serverEnv(key, port, context), port, context });
  server.budgets = limiter ? LIMIT_BUDGETS : undefined;
  servers.set(key, server);
  cleanups.push(() => stopServer(server));
  const what = `${RUNTIMES[runtime].label} (${key})`;

  // Ready = the ceiling route answers 200 (also loads that route's bundle).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exited) throw new Error(`${what} exited early:\n${server.log.join("\n")}`);
    try {
      const r = await request(undefined, server, CEILING_PATH, "{}", {});
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready after 60 s:\n${server.log.join("\n")}`);
    await sleep(100);
  }
  if (RUNTIMES[runtime].mcp) {
    server.identities = {};
    for (const [name, subject] of Object.entries(SUBJECTS)) {
      const bearer = `Bearer ${await devToken(port, subject)}`;
      server.identities[name] = { bearer, session: await openSession(server, bearer) };
    }
    server.session = await openSession(server);
  } else {
    server.session = stubSession();
  }
  console.log(`[bench] ${what} ready on ${HOST}:${port} (pid ${server.pid})${RUNTIMES[runtime].mcp ? `, session ${server.session["mcp-session-id"]}` : ""}`);
  return server;
}

/** Stop a server: SIGTERM to its process group, SIGKILL if it lingers (profiles need a clean exit). */
async function stopServer(server) {
  if (server.exited) return;
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

// Last resort if we die abruptly: synchronous kill of the servers' groups. (The db-workers exit by
// themselves when our end of their IPC channel closes; a schema left behind is named bench_….)
process.on("exit", () => {
  for (const server of [...servers.values(), ...transient]) {
    if (server.exited) continue;
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.error(`[bench] ${signal}: stopping servers, removing databases`);
    cleanUp().finally(() => process.exit(130));
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

/** Every process's stat now, by pid. */
function allStats() {
  const stats = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.set(Number(name), readStat(name));
    } catch {
      // process vanished while scanning
    }
  }
  return stats;
}

/** CPU milliseconds consumed so far by process `root` and all its descendants. */
function treeCpuMs(root) {
  const stats = allStats();
  let ticks = 0;
  for (const pid of processTree(root, stats)) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / CLK_TCK;
}

/** Resident memory (VmRSS, KiB) of process `root` and all its descendants. */
function treeRssKb(root) {
  let kb = 0;
  for (const pid of processTree(root, allStats())) {
    try {
      kb += Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb;
}

/** Busy and total CPU time of the whole machine so far (all cores, /proc/stat), in ms. */
function machineCpuMs() {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: ((total - idle) * 1000) / CLK_TCK, total: (total * 1000) / CLK_TCK };
}

/** `root` and its descendants, from one /proc scan. */
function processTree(root, stats) {
  const tree = new Set([root]);
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
  return tree;
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

/** One POST to `server`; resolves with status, headers and the body text. `agent` undefined = no keep-alive. */
function request(agent, server, urlPath, body, headers) {
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
        server.served++; // every answered request, warm-up included (normalizes profiles)
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

/**
 * initialize + notifications/initialized; returns the headers every later request carries. A
 * session belongs to its subject: one opened with `bearer` is used only with that token.
 */
async function openSession(server, bearer) {
  const auth = bearer ? { authorization: bearer } : {};
  const init = await request(undefined, server, MCP_PATH, JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  }), { accept: ACCEPT, ...auth });
  const sessionId = init.headers["mcp-session-id"];
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: HTTP ${init.status} ${init.body.slice(0, 300)}`);
  const headers = { accept: ACCEPT, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION, ...auth };
  const ack = await request(undefined, server, MCP_PATH, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
  if (ack.status !== 202) throw new Error(`notifications/initialized: expected 202, got ${ack.status} ${ack.body.slice(0, 300)}`);
  return headers;
}

// ---------------------------------------------------------------------------------------------
// The systems under test. HTTP systems build their body per request (fresh JSON-RPC id) and check
// the answer; unless an era says otherwise they carry their server's session headers, so the
// ceiling and the MCP rows differ only in the route, not in the request the server parses.
// Direct systems (prisma:…) are a query name for the database's db-worker.
// ---------------------------------------------------------------------------------------------
const DATABASES = [
  { key: "pg", label: "PostgreSQL", prepare: () => preparePostgres(CONFIG.databaseUrl) },
  { key: "pglite", label: "PGlite", prepare: preparePglite },
];

/**
 * The servers: each one's database and rate limiter. The main one is always on the bench's
 * PostgreSQL schema, even for the framework rows alone: every tools/call writes an audit row,
 * which without DATABASE_URL would land in the developer's embedded database (.data/pglite), and
 * the tools/call rows would then cost different things depending on which other rows were
 * selected. The limits-… servers are its twins on the same schema, differing only in the limiter.
 * `limiter` undefined = limits off (MCP_RATE_LIMITS=0).
 */
const SERVERS = {
  main: { db: "pg" },
  pglite: { db: "pglite" },
  "limits-memory": { db: "pg", limiter: "memory" },
  "limits-redis": { db: "pg", limiter: "redis" },
  // A twin of main for the initialize row alone: every initialize leaves a session behind.
  initialize: { db: "pg" },
  // The other stacks (RUNTIMES). node-core is our core again, so it has main's settings.
  "node-raw": { runtime: "node-raw" },
  "node-core": { runtime: "node-core", db: "pg" },
  "mcp-handler": { runtime: "mcp-handler" },
};

/** The limiters with rows of their own, in report order (`off` = the main server's tools/call). */
const LIMITERS = ["memory", "redis"];

/**
 * Budgets of the limiting servers, per method: the most lib/config/env.ts accepts, a million per
 * 60 s window. Even a server answering ~1,000 req/s for the whole window counts 60,000, so nothing
 * is ever refused: every request pays for being counted and for nothing else.
 */
const LIMIT_WINDOW_SECONDS = 60;
const LIMIT_BUDGETS = { "tools/list": 1_000_000, "tools/call": 1_000_000, initialize: 1_000_000, other: 1_000_000 };

/** The server a system's requests go to: its own if it names one, PGlite rows theirs, everything else the main one. */
const serverKeyOf = (system) => system.server ?? (system.db === "pglite" ? "pglite" : "main");

/** The databases a system needs: its own data, and its server's. */
const databasesOf = (system) => [system.db, system.direct ? undefined : SERVERS[serverKeyOf(system)].db].filter(Boolean);

/** Does any of `systems` run on a server that counts in Redis? */
const needsRedis = (systems) => systems.some((s) => !s.direct && SERVERS[serverKeyOf(s)].limiter === "redis");

/** Is server `key` our MCP endpoint (next start or node-core), as opposed to a reference stack? */
const isOurs = (key) => RUNTIMES[SERVERS[key].runtime ?? "next"].mcp;

/**
 * A server's limiter settings. Whatever the shell says about limits or Redis is dropped first, so
 * a REDIS_URL there cannot turn limits-memory into a Redis limiter, nor MCP_RATE_LIMITS=1 turn
 * limits on for the reference rows.
 */
function limiterEnv(env, limiter, redis) {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !/^(MCP_RATE_LIMIT|REDIS_URL$|UPSTASH_REDIS_REST_)/.test(name)));
  if (!limiter) return { ...kept, MCP_RATE_LIMITS: "0" };
  return {
    ...kept,
    MCP_RATE_LIMITS: "1",
    MCP_RATE_LIMIT_WINDOW_SECONDS: String(LIMIT_WINDOW_SECONDS),
    MCP_RATE_LIMIT_TOOLS_LIST: String(LIMIT_BUDGETS["tools/list"]),
    MCP_RATE_LIMIT_TOOLS_CALL: String(LIMIT_BUDGETS["tools/call"]),
    MCP_RATE_LIMIT_OTHER: String(LIMIT_BUDGETS.other),
    MCP_RATE_LIMIT_INITIALIZE: String(LIMIT_BUDGETS.initialize),
    // Fail closed: a Redis that stops answering turns into 503s (errors), not unlimited passes.
    MCP_RATE_LIMIT_FAILURE: "closed",
    ...(limiter === "redis" ? { REDIS_URL: redis.url } : {}),
  };
}

/** A body builder: everything after the id is serialized once; only the id changes per request. */
function rpc(method, params) {
  const tail = `,"method":${JSON.stringify(method)}${params ? `,"params":${JSON.stringify(params)}` : ""}}`;
  return (id) => `{"jsonrpc":"2.0","id":${id}${tail}`;
}

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** The protocol eras: 2025-11-25 in the server's session; 2026-07-28 with no session, everything in _meta and the Mcp-* headers. */
const ERAS = [
  { suffix: "", body: rpc, headers: () => undefined },
  {
    suffix: "@2026",
    body: (method, params) => rpc(method, { ...params, _meta: { ...params?._meta, ...MODERN_META } }),
    headers: (method, name) => ({ accept: ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) }),
  },
];

/** 2025-11-25 without a session, as a stateless server (mcp-handler) is called. */
const SESSIONLESS_2025 = { accept: ACCEPT, "mcp-protocol-version": PROTOCOL_VERSION };

const toolCall = (name, args) => ({ name, arguments: args });

/**
 * Checks take the answer's JSON-RPC response (for an SSE answer, the one carrying the result) and
 * { notifications, headers, id }, and return true when it is right.
 */
const hasResult = (json) => json !== null && typeof json === "object" && json.result !== null && typeof json.result === "object";
const isToolList = (j) => hasResult(j) && Array.isArray(j.result.tools);
/** A tools/call answer that is not an error and whose structuredContent passes `check` (undefined = right). */
const isToolResult = (check = () => undefined) => (j) => hasResult(j) && j.result.isError !== true && check(j.result.structuredContent ?? {}) === undefined;

/**
 * An MCP request in one era, named `<label><era>[/<db>]`. `auth`: sent with a token of the bench
 * (and, in 2025-11-25, in the session opened with it) — the data tools need one: true or "reader"
 * = the owner of the seeded worlds, "writer" = the subject create_world writes as.
 */
function mcpSystem(era, label, method, params, check, db, auth = db !== undefined) {
  return { name: `${label}${era.suffix}${db ? `/${db}` : ""}`, db, auth, method, path: MCP_PATH, body: era.body(method, params), headers: era.headers(method, params?.name), check };
}

/** initialize (2025-11-25 only): a new session per request, on its own twin server. */
const INITIALIZE = {
  ...mcpSystem(ERAS[0], "initialize", "initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } }, (j, a) => hasResult(j) && j.result.protocolVersion === PROTOCOL_VERSION && typeof a.headers["mcp-session-id"] === "string"),
  // No session header: initialize is what opens one.
  headers: { accept: ACCEPT },
  server: "initialize",
};

/** server/discover: 2026-07-28's counterpart of initialize, with no session to open. */
const DISCOVER = mcpSystem(ERAS[1], "server/discover", "server/discover", {}, (j) => hasResult(j) && Array.isArray(j.result.supportedVersions));

/** create_world: a write on PostgreSQL, as `writer`. */
const CREATE_ARGS = { name: "Bench Written World", theme: "steampunk", tone: "even" };
const createWorld = (era) =>
  mcpSystem(era, "create_world", "tools/call", toolCall("create_world", CREATE_ARGS), isToolResult((s) => (typeof s.world?.id === "string" && s.world.name === CREATE_ARGS.name ? undefined : "no world")), "pg", "writer");

/**
 * draft_world_outline with a progress token (the request's id): an SSE answer of 10 progress
 * notifications, then the result. Built per request, as the token is the id.
 */
const DRAFT_ARGS = { name: "Bench Outline", theme: "fantasy", style: "elvish" };
const DRAFT_SECTIONS = 10;
function isDraftStream(j, { notifications, id }) {
  const progress = notifications.filter((n) => n.method === "notifications/progress" && n.params?.progressToken === id);
  if (progress.length !== DRAFT_SECTIONS || progress.some((n, i) => n.params.progress !== i + 1 || n.params.total !== DRAFT_SECTIONS)) return false;
  return isToolResult((s) => (s.sections?.length === DRAFT_SECTIONS ? undefined : "sections"))(j);
}
const draftStream = (era) => {
  const system = mcpSystem(era, "draft_world_outline+progress", "tools/call", toolCall("draft_world_outline", DRAFT_ARGS), isDraftStream);
  return { ...system, body: (id) => era.body("tools/call", { ...toolCall("draft_world_outline", DRAFT_ARGS), _meta: { progressToken: id } })(id), answer: "sse" };
};

/**
 * The same framework requests on mcp-handler: stateless in both eras (no session to open), and in
 * 2025-11-25 it answers every request with an SSE stream, so the answer's format is left free.
 * `ours`: the row of ours it is compared with.
 */
const mcpHandlerSystems = () =>
  ERAS.flatMap((era) => [
    { ...mcpSystem(era, "mcp-handler tools/list", "tools/list", undefined, isToolList), ours: `tools/list${era.suffix}` },
    { ...mcpSystem(era, "mcp-handler tools/call", "tools/call", SUGGEST_NAMES, isToolResult((s) => (s.names?.length === SUGGEST_NAMES.arguments.count ? undefined : "names"))), ours: `tools/call${era.suffix}` },
  ]).map((s) => ({ ...s, headers: s.headers ?? SESSIONLESS_2025, server: "mcp-handler", answer: "any", optional: "mcp-handler" }));

/** Plain node:http: the fixed JSON alone, and our core behind a minimal adapter (`raw`: its reference row). */
const NODE_RAW = "node:http raw";
const nodeHttpSystems = () => [
  { name: NODE_RAW, path: CEILING_PATH, body: rpc("tools/list"), check: hasResult, server: "node-raw", optional: "node:http" },
  ...ERAS.flatMap((era) => [
    { ...mcpSystem(era, "node:http core tools/list", "tools/list", undefined, isToolList), ours: `tools/list${era.suffix}` },
    { ...mcpSystem(era, "node:http core tools/call", "tools/call", SUGGEST_NAMES, isToolResult()), ours: `tools/call${era.suffix}` },
  ]).map((s) => ({ ...s, server: "node-core", raw: NODE_RAW, optional: "node:http" })),
];

/** The tools/call every framework row makes: suggest_names reads no world data (an audit row is all it writes). */
const SUGGEST_NAMES = toolCall("suggest_names", { style: "elvish", count: 3 });

/** Per database: the two tools in both eras over HTTP, then the same reads without HTTP. */
function databaseSystems(db) {
  return [
    ...ERAS.map((era) => mcpSystem(era, "get_world", "tools/call", toolCall("get_world", { worldId: TARGET_WORLD_ID }), isToolResult((s) => checkWorld(s.world)), db)),
    ...ERAS.map((era) => mcpSystem(era, "list_worlds", "tools/call", toolCall("list_worlds", LIST_ARGS), isToolResult((s) => checkWorldPage(s.worlds)), db)),
    ...["get_world", "list_worlds"].map((query) => ({ name: directRowName(query, db), db, direct: query })),
  ];
}

function defineSystems() {
  const all = [
    // Same bytes as a tools/list request, sent to the bare route: what Next alone costs.
    { name: "ceiling", path: CEILING_PATH, body: rpc("tools/list"), check: hasResult },
    // The bare route that also reads the body: the floor for any endpoint that must parse a POST.
    { name: CEILING_BODY, path: `${CEILING_PATH}/read-body`, body: rpc("tools/list"), check: hasResult },
    ...ERAS.flatMap((era) => [
      mcpSystem(era, "tools/list", "tools/list", undefined, isToolList),
      // The same list with a valid token: what verifying it costs (the JWKS is cached).
      mcpSystem(era, "tools/list+token", "tools/list", undefined, isToolList, undefined, true),
      mcpSystem(era, "tools/call", "tools/call", SUGGEST_NAMES, isToolResult()),
    ]),
    // The handshake of each era, and a tool call answered as a stream of progress.
    INITIALIZE,
    DISCOVER,
    ...ERAS.map(draftStream),
    // The same tools/list and tools/call on mcp-handler, then the core without Next.
    ...mcpHandlerSystems(),
    ...nodeHttpSystems(),
    // The same tools/call on a server whose limiter counts it (in process, in Redis): beside
    // tools/call above (limits off), what the limiter adds to a request.
    ...ERAS.flatMap((era) =>
      LIMITERS.map((limiter) => ({ ...mcpSystem(era, `tools/call+limits:${limiter}`, "tools/call", SUGGEST_NAMES, isToolResult()), server: `limits-${limiter}`, limiter })),
    ),
    ...DATABASES.flatMap((db) => databaseSystems(db.key)),
    ...ERAS.map(createWorld),
  ];
  if (!CONFIG.systems) return { systems: all, coldStart: CONFIG.coldStarts > 0 };
  const patterns = CONFIG.systems.map((text) => ({ text, re: globToRegExp(text) }));
  // Not a closed-loop system, but selected the same way.
  const coldStart = CONFIG.coldStarts > 0 && patterns.some(({ re }) => re.test(COLD_START));
  // A pattern that selects nothing is a typo: say so rather than quietly measure less.
  const unknown = patterns.filter(({ re }) => !re.test(COLD_START) && !all.some((s) => re.test(s.name)));
  if (unknown.length > 0) throw new Error(`BENCH_SYSTEMS: nothing matches ${unknown.map((u) => u.text).join(", ")} (known: ${all.map((s) => s.name).join(", ")}, ${COLD_START})`);
  return { systems: all.filter((s) => patterns.some(({ re }) => re.test(s.name))), coldStart };
}

/** The name BENCH_SYSTEMS selects the cold starts and memory readings by. */
const COLD_START = "cold-start";

/** A whole-name matcher where `*` stands for any text and everything else is literal. */
function globToRegExp(glob) {
  const literal = (part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${glob.split("*").map(literal).join(".*")}$`);
}

/**
 * An answer's JSON-RPC messages. JSON: the body. SSE: every `data:` payload in order (the empty
 * priming event of a resumable stream skipped); `json` is the response among them, `notifications`
 * the rest. `json` is null when a payload is not JSON or there is no response.
 */
function decodeAnswer(res) {
  const type = String(res.headers["content-type"] ?? "");
  if (!type.startsWith("text/event-stream")) {
    try {
      return { format: "json", json: JSON.parse(res.body), notifications: [] };
    } catch {
      return { format: type || "none", json: null, notifications: [] };
    }
  }
  const messages = [];
  for (const event of res.body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    if (data === "") continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      return { format: "sse", json: null, notifications: [] };
    }
  }
  const isResponse = (m) => m !== null && typeof m === "object" && "id" in m && ("result" in m || "error" in m);
  return { format: "sse", json: messages.find(isResponse) ?? null, notifications: messages.filter((m) => !isResponse(m)) };
}

/** The headers a system's requests carry on `server`: its own, else a session of the right subject. */
function headersFor(system, server) {
  const identity = system.auth ? server.identities[system.auth === true ? "reader" : system.auth] : undefined;
  if (system.headers) return identity ? { ...system.headers, authorization: identity.bearer } : system.headers;
  return identity ? identity.session : server.session;
}

/**
 * One HTTP cell: the closed loop plus the CPU its server, this client and (if connected) Redis
 * spent, and a sample answer (format and size) for the report.
 */
async function runHttpCell(system, concurrency, seconds, redis) {
  const server = servers.get(serverKeyOf(system));
  const headers = headersFor(system, server);
  // An MCP answer states the budget it was counted in, or nothing with limits off: proof that
  // each row ran with the limiter it is named after. (Only ours: other stacks have no limiter.)
  const budget = server.budgets?.[system.method] ?? server.budgets?.other;
  const limitHeader = budget === undefined ? undefined : String(budget);
  const checkLimit = system.method && isOurs(server.key);
  const expected = system.answer ?? "json";
  const agent = await primedAgent(concurrency, server);
  let nextId = 1;
  let sample;
  /** Checks one whole answer (parsed); returns what is wrong, or undefined. */
  const judge = (res, id) => {
    const answer = decodeAnswer(res);
    const wrongFormat = expected !== "any" && answer.format !== expected;
    // The response must answer this request (the ceiling's fixed body aside).
    const wrongId = system.method && answer.json?.id !== id;
    if (res.status !== 200 || wrongFormat || wrongId || !system.check(answer.json, { notifications: answer.notifications, headers: res.headers, id })) {
      return `HTTP ${res.status} (${answer.format}${wrongFormat ? `, expected ${expected}` : ""}): ${res.body.slice(0, 200)}`;
    }
    return undefined;
  };
  const later = deferredChecks(system, expected);
  const call = async () => {
    const id = nextId++;
    const res = await request(agent, server, system.path, system.body(id), headers);
    sample ??= { format: decodeAnswer(res).format, bytes: Buffer.byteLength(res.body) };
    if (checkLimit && res.headers["ratelimit-limit"] !== limitHeader) return `RateLimit-Limit ${res.headers["ratelimit-limit"] ?? "absent"}, expected ${limitHeader ?? "absent"}`;
    if (later?.keep(res, id)) return undefined;
    return judge(res, id);
  };
  const cpu0 = treeCpuMs(server.pid);
  const redis0 = redis ? await redis.cpuMs() : undefined;
  const client0 = process.cpuUsage();
  const startUs = monotonicUs();
  const cell = await closedLoop({ concurrency, seconds, call });
  const endUs = monotonicUs();
  const client = process.cpuUsage(client0);
  const serverMs = treeCpuMs(server.pid) - cpu0;
  // redis-server's CPU over the cell (the INFO round trip is outside the timed loop).
  const redisMs = redis ? (await redis.cpuMs()) - redis0 : NaN;
  agent.destroy();
  // The kept answers are judged now, outside the timing; a wrong one counts as an error as before.
  if (later) {
    for (const { res, id, count, wrong } of later.kept()) {
      const problem = wrong ? `the id member found is not the response's own: ${res.body.slice(0, 200)}` : judge(res, id);
      if (problem === undefined) continue;
      cell.ok -= count;
      cell.errors += count;
      cell.firstError ??= problem;
    }
  }
  return { ...cell, serverMs, redisMs, clientMs: (client.user + client.system) / 1000, sample, window: { startUs, endUs } };
}

/**
 * The monotonic clock in µs. A V8 .cpuprofile's startTime and sample times are on the same clock
 * (CLOCK_MONOTONIC on Linux), so the windows recorded with it cut a server's profile to one cell.
 */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Answers judged after the cell instead of during it. Parsing every answer inside the timed loop
 * put the load generator's JSON.parse on the critical path (a 20 KB tools/list costs the client
 * more than the ceiling's whole round trip at c=1), and on this machine the client shares the
 * server's two cores. Nothing is sampled: a JSON answer with status 200 is kept as its body with
 * this request's id cut out, identical bodies once with a count, and every distinct body is parsed
 * and checked after the cell exactly as the loop would have. Checks that read more than the body
 * (headers, SSE notifications) still run in the loop. Returns undefined when nothing can be kept.
 */
function deferredChecks(system, expected) {
  if (expected !== "json" || system.check.length > 1) return undefined;
  const kept = new Map();
  return {
    /** true: kept for later (never judged in the loop); false: judge it now. */
    keep(res, id) {
      if (res.status !== 200 || !String(res.headers["content-type"] ?? "").startsWith("application/json")) return false;
      // The id must be this request's (the ceiling's fixed body aside): found as a whole member.
      const cut = system.method ? withoutId(res.body, id) : { at: -1, rest: res.body };
      if (cut === undefined) return false;
      // Where the id was cut is part of the key: bodies with one key differ only in that id.
      const key = `${cut.at}:${cut.rest}`;
      const seen = kept.get(key);
      if (seen) seen.count++;
      else kept.set(key, { res, id, at: cut.at, rest: cut.rest, count: 1 });
      return true;
    },
    /** Kept answers; `wrong` when the cut member is not the response's own id (a nested "id"). */
    *kept() {
      for (const entry of kept.values()) {
        const wrong = entry.at >= 0 && !isTopLevelId(entry.rest, entry.at);
        yield { ...entry, wrong };
      }
    },
  };
}

/** `body` with its first whole `"id":<id>` member cut out (and where it was), or undefined. */
function withoutId(body, id) {
  const member = `"id":${id}`;
  for (let at = body.indexOf(member); at !== -1; at = body.indexOf(member, at + 1)) {
    const before = body[at - 1];
    const after = body[at + member.length];
    if ((before === "{" || before === ",") && (after === "," || after === "}")) return { at, rest: body.slice(0, at) + body.slice(at + member.length) };
  }
  return undefined;
}

/** Whether an id put back at `at` is the response's own id: then every body of this key answered its request. */
function isTopLevelId(rest, at) {
  const probe = -987654321;
  try {
    return JSON.parse(`${rest.slice(0, at)}"id":${probe}${rest.slice(at)}`)?.id === probe;
  } catch {
    return false;
  }
}

/**
 * One direct cell, timed inside the database's worker. Its "server" CPU is the worker's (Prisma,
 * driver and, for PGlite, the database engine); there is no separate client to charge.
 */
async function runDirectCell(system, databases, concurrency, seconds) {
  const { cpuMs, ...cell } = await databases.get(system.db).worker.call("run", { query: system.direct, concurrency, seconds });
  return { ...cell, serverMs: cpuMs, redisMs: NaN, clientMs: NaN };
}

function runCell(system, { databases, redis }, concurrency, seconds) {
  return system.direct ? runDirectCell(system, databases, concurrency, seconds) : runHttpCell(system, concurrency, seconds, redis);
}

/**
 * A keep-alive agent with `concurrency` sockets already connected to `server`, so no cell pays for
 * connects. Fresh for every cell: with two servers, a socket can sit idle for several cells, past
 * the server's keep-alive timeout, and reconnecting inside a timed cell showed up as p99 outliers.
 */
async function primedAgent(concurrency, server) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  await Promise.all(Array.from({ length: concurrency }, () => request(agent, server, CEILING_PATH, "{}", server.session)));
  return agent;
}

// ---------------------------------------------------------------------------------------------
// Statistics and report
// ---------------------------------------------------------------------------------------------
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const ascending = (values) => [...values].sort((a, b) => a - b);
const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a");

/** Median, min and max of per-round ratios (same round = same machine conditions). */
function spreadOf(ratios) {
  const sorted = ascending(ratios);
  return { median: percentile(sorted, 50), min: sorted[0], max: sorted[sorted.length - 1] };
}

function summarize(systems, cells) {
  const rows = [];
  for (const c of CONFIG.concurrencies) {
    const byName = new Map();
    for (const s of systems) {
      const runs = cells.filter((x) => x.system === s.name && x.concurrency === c);
      const requests = runs.reduce((a, r) => a + r.ok + r.errors, 0);
      const wallMs = runs.reduce((a, r) => a + r.wallMs, 0);
      const latencies = ascending(runs.flatMap((r) => r.latencies));
      byName.set(s.name, {
        system: s.name,
        db: s.db,
        concurrency: c,
        rps: (requests / wallMs) * 1000,
        roundRps: runs.map((r) => ((r.ok + r.errors) / r.wallMs) * 1000),
        roundP50: runs.map((r) => percentile(ascending(r.latencies), 50)),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpuPerReq: runs.reduce((a, r) => a + r.serverMs, 0) / requests,
        roundCpuPerReq: runs.map((r) => r.serverMs / (r.ok + r.errors)),
        redisCpuPerReq: runs.reduce((a, r) => a + r.redisMs, 0) / requests,
        clientCpuPerReq: runs.reduce((a, r) => a + r.clientMs, 0) / requests,
        requests,
        errors: runs.reduce((a, r) => a + r.errors, 0),
        firstError: runs.find((r) => r.firstError)?.firstError,
        sample: runs.find((r) => r.sample)?.sample,
      });
    }
    const ceiling = byName.get("ceiling");
    const ceilingBody = byName.get(CEILING_BODY);
    for (const row of byName.values()) {
      if (ceilingBody) row.ratioBody = row.rps / ceilingBody.rps;
      if (ceiling) {
        row.ratio = row.rps / ceiling.rps;
        // Per-round ratios resist a noisy round (other work on the machine); their spread shows
        // how much to trust the aggregate.
        row.ratioSpread = spreadOf(row.roundRps.map((r, i) => r / ceiling.roundRps[i]));
        row.cpuRatio = row.cpuPerReq / ceiling.cpuPerReq;
        row.p50Ratio = row.p50 / ceiling.p50;
        row.p99Ratio = row.p99 / ceiling.p99;
        row.p50Spread = spreadOf(row.roundP50.map((p, i) => p / ceiling.roundP50[i]));
      }
      rows.push(row);
    }
  }
  return rows;
}

const fmtSpread = (s) => (s ? `${fmt(s.median, 2)} [${fmt(s.min, 2)}–${fmt(s.max, 2)}]` : "");
/** A ratio as "1.23x"; empty when there is nothing to compare with (its reference was not selected). */
const times = (n, bold = false) => (n === undefined ? "" : bold ? `**${fmt(n, 2)}x**` : `${fmt(n, 2)}x`);

/** The main table: throughput and CPU of every system. */
function throughputTable(rows) {
  const lines = [
    "| system | c | req/s | vs ceiling | per-round median [min–max] | vs ceiling+body | p50 ms | p99 ms | server CPU ms/req | CPU vs ceiling | client CPU ms/req | requests | errors |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of rows) {
    const ratio = r.system === "ceiling" ? "1.00x" : times(r.ratio, true);
    const spread = r.system === "ceiling" ? "" : fmtSpread(r.ratioSpread);
    const errors = r.errors > 0 ? `**${r.errors} ⚠**` : "0";
    lines.push(
      `| ${r.system} | ${r.concurrency} | ${fmt(r.rps)} | ${ratio} | ${spread} | ${times(r.ratioBody)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${times(r.cpuRatio)} | ${fmt(r.clientCpuPerReq, 3)} | ${fmt(r.requests)} | ${errors} |`,
    );
  }
  return lines;
}

/** Rows the database table shows for reference: the bare route, and a tools/call that reads no database. */
const REFERENCE_ROWS = new Set(["ceiling", "tools/call", "tools/call@2026"]);

/** The database table: get_world and list_worlds latency beside the ceiling's, per concurrency. */
function databaseTable(rows) {
  const lines = [
    "| system | database | c | p50 ms | p50 vs ceiling p50 | per-round median [min–max] | p99 ms | p99 vs ceiling p99 | req/s |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of rows.filter((row) => REFERENCE_ROWS.has(row.system) || row.db)) {
    const database = DATABASES.find((d) => d.key === r.db)?.label ?? "—";
    const p50Ratio = r.system === "ceiling" ? "1.00x" : times(r.p50Ratio, true);
    const spread = r.system === "ceiling" ? "" : fmtSpread(r.p50Spread);
    lines.push(`| ${r.system} | ${database} | ${r.concurrency} | ${fmt(r.p50, 2)} | ${p50Ratio} | ${spread} | ${fmt(r.p99, 2)} | ${times(r.p99Ratio)} | ${fmt(r.rps)} |`);
  }
  return lines;
}

/** A difference with its sign: "+0.12", "-0.03". */
const signed = (n, digits) => (Number.isFinite(n) ? `${n >= 0 ? "+" : "-"}${fmt(Math.abs(n), digits)}` : "n/a");
const fmtSignedSpread = (s, digits) => (s ? `${signed(s.median, digits)} [${signed(s.min, digits)} – ${signed(s.max, digits)}]` : "");

/** The rows of the rate-limiter table at one c and era: limits off (the plain tools/call), then each limiter's. */
function limiterRows(rows, c, era) {
  const at = (name) => rows.find((r) => r.system === name && r.concurrency === c);
  const limited = LIMITERS.map((limiter) => ({ limiter, row: at(`tools/call+limits:${limiter}${era.suffix}`) })).filter((x) => x.row);
  return limited.length === 0 ? [] : [{ limiter: "off", row: at(`tools/call${era.suffix}`) }, ...limited].filter((x) => x.row);
}

/**
 * What the rate limiter adds to a request: the same tools/call with limits off, counted in process
 * and counted in Redis, and the differences to limits off (overall and per round, same conditions).
 */
function limiterTable(rows) {
  const lines = [
    "| system | limiter | c | p50 ms | p99 ms | server CPU ms/req | Redis CPU ms/req | added p50 ms | per-round added p50 median [min – max] | added p99 ms | added server CPU ms/req | per-round added CPU median [min – max] | req/s | errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const era of ERAS) {
      const group = limiterRows(rows, c, era);
      const off = group.find((x) => x.limiter === "off")?.row;
      for (const { limiter, row: r } of group) {
        const vsOff = off && r !== off;
        const perRound = (a, b) => (vsOff ? spreadOf(a.map((v, i) => v - b[i])) : undefined);
        lines.push(
          `| ${r.system} | ${limiter} | ${c} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${fmt(r.redisCpuPerReq, 3)} | ` +
            `${vsOff ? `**${signed(r.p50 - off.p50, 2)}**` : ""} | ${fmtSignedSpread(perRound(r.roundP50, off?.roundP50), 2)} | ${vsOff ? signed(r.p99 - off.p99, 2) : ""} | ` +
            `${vsOff ? `**${signed(r.cpuPerReq - off.cpuPerReq, 3)}**` : ""} | ${fmtSignedSpread(perRound(r.roundCpuPerReq, off?.roundCpuPerReq), 3)} | ${fmt(r.rps)} | ${r.errors > 0 ? `**${r.errors} ⚠**` : "0"} |`,
        );
      }
    }
  }
  return lines;
}

/** One line per c and limiter: the added p50 and CPU per request against limits off. */
function limiterLines(rows) {
  return CONFIG.concurrencies.flatMap((c) =>
    ERAS.flatMap((era) => {
      const group = limiterRows(rows, c, era);
      const off = group.find((x) => x.limiter === "off")?.row;
      if (!off) return [];
      return group
        .filter((x) => x.row !== off)
        .map(({ limiter, row }) => {
          const redisCpu = limiter === "redis" && Number.isFinite(row.redisCpuPerReq) ? `, plus ${fmt(row.redisCpuPerReq - off.redisCpuPerReq, 3)} ms of Redis's` : "";
          return `- c=${c}, tools/call${era.suffix}, limits in ${limiter}: ${signed(row.p50 - off.p50, 2)} ms p50 (${fmt(off.p50, 2)} → ${fmt(row.p50, 2)}), ${signed(row.cpuPerReq - off.cpuPerReq, 3)} ms server CPU per request${redisCpu}`;
        });
    }),
  );
}

const TARGET_P50_RATIO = 1.5;

/** The issue's target, once per concurrency: get_world on PostgreSQL against the ceiling, both p50. */
function targetLines(rows) {
  return CONFIG.concurrencies.flatMap((c) => {
    const row = rows.find((r) => r.system === "get_world/pg" && r.concurrency === c);
    if (!row || row.p50Ratio === undefined) return [];
    const verdict = row.p50Ratio <= TARGET_P50_RATIO ? "met" : "**not met**";
    return [`- c=${c}: get_world p50 on PostgreSQL vs ceiling p50: ${fmt(row.p50Ratio, 2)}x (target <= ${TARGET_P50_RATIO}x) — ${verdict}`];
  });
}

/** The issue's goals. */
const GOALS = { vsCeiling: 0.95, vsMcpHandler: 2.5, mcpHandlerAt: 32, coreVsRaw: 0.3, getWorldP50: TARGET_P50_RATIO, coldStart: 1.1, rss: 1.1 };

/**
 * a ÷ b overall, and per round (the same round: the same machine conditions). For req/s also the
 * server-CPU view: b's CPU per request ÷ a's, the req/s ratio two CPU-bound servers would show
 * with nothing else on the machine (a client parsing bigger answers, neighbours' work: not in it).
 */
function pairOf(a, b, metric = "rps") {
  if (!a || !b) return undefined;
  if (metric === "p50") return { value: a.p50 / b.p50, spread: spreadOf(a.roundP50.map((p, i) => p / b.roundP50[i])) };
  return {
    value: a.rps / b.rps,
    spread: spreadOf(a.roundRps.map((r, i) => r / b.roundRps[i])),
    cpu: { value: b.cpuPerReq / a.cpuPerReq, spread: spreadOf(a.roundCpuPerReq.map((cpu, i) => b.roundCpuPerReq[i] / cpu)) },
  };
}

const median = (values) => percentile(ascending(values), 50);

/** The cold-start and memory comparisons: medians, and the ratios of the i-th run of each kind. */
function coldPairs(cold) {
  if (!cold) return undefined;
  const ceiling = cold.runs.ceiling;
  const ours = cold.runs["tools/list"];
  const n = Math.min(ceiling.length, ours.length);
  if (n === 0) return undefined;
  const of = (field) => ({
    ours: median(ours.map((r) => r[field])),
    ceiling: median(ceiling.map((r) => r[field])),
    spread: spreadOf(Array.from({ length: n }, (_, i) => ours[i][field] / ceiling[i][field])),
  });
  const start = of("startMs");
  const rss = of("rssKb");
  return { n, start: { ...start, value: start.ours / start.ceiling }, rss: { ...rss, value: rss.ours / rss.ceiling } };
}

/** "skipped" when a group's rows were (the reason is under the table). */
const skippedNote = (group) => (skipped.some((s) => s.group === group) ? `${group} rows skipped (below)` : "");

/**
 * get_world's floor at c=1, where one request's latency is its parts one after another: the
 * route that only reads its body, then get_world's statement timed alone (no HTTP), ÷ the
 * ceiling's p50 — overall and per round. At c=32 the parts overlap on the shared cores and do not
 * add up, so there is no floor there.
 */
function queryFloorOf(body, query, ceiling) {
  if (!body || !query || !ceiling || body.concurrency !== 1) return undefined;
  return {
    value: (body.p50 + query.p50) / ceiling.p50,
    spread: spreadOf(body.roundP50.map((p, i) => (p + query.roundP50[i]) / ceiling.roundP50[i])),
  };
}

/**
 * One line per target and c: what was measured against the goal, pass or miss, and the floor —
 * the same measure taken for the least any JSON-RPC route on this framework must do (read its
 * body), in the same run. A floor that misses the goal says no implementation on these route
 * handlers could meet it on this machine.
 */
function targetRows(rows, cold) {
  const at = (name, c) => rows.find((r) => r.system === name && r.concurrency === c);
  const out = [];
  const add = (target, c, pair, goal, detail, floor) => out.push({ target, c, pair, goal, detail, floor });
  const atLeast = (x) => ({ text: `≥ ${x}x`, ok: (v) => v >= x });
  const atMost = (x) => ({ text: `≤ ${x}x`, ok: (v) => v <= x });
  const rps = (a, b) => (a && b ? `${fmt(a.rps)} vs ${fmt(b.rps)} req/s` : "");
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      for (const c of CONFIG.concurrencies) {
        const ours = at(`${req}${era.suffix}`, c);
        const ceiling = at("ceiling", c);
        if (ours && ceiling) add(`${req}${era.suffix} req/s ÷ ceiling req/s`, c, pairOf(ours, ceiling), atLeast(GOALS.vsCeiling), rps(ours, ceiling), pairOf(at(CEILING_BODY, c), ceiling));
      }
    }
  }
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      const c = GOALS.mcpHandlerAt;
      const ours = at(`${req}${era.suffix}`, c);
      const theirs = at(`mcp-handler ${req}${era.suffix}`, c);
      if (theirs || skippedNote("mcp-handler")) add(`${req}${era.suffix} req/s ÷ mcp-handler ${req}${era.suffix} req/s`, c, pairOf(ours, theirs), atLeast(GOALS.vsMcpHandler), rps(ours, theirs) || skippedNote("mcp-handler"), pairOf(at(CEILING_BODY, c), theirs));
    }
  }
  for (const req of ["tools/list", "tools/call"]) {
    for (const era of ERAS) {
      for (const c of CONFIG.concurrencies) {
        const core = at(`node:http core ${req}${era.suffix}`, c);
        const raw = at(NODE_RAW, c);
        if (core || skippedNote("node:http")) add(`node:http core ${req}${era.suffix} req/s ÷ node:http raw req/s`, c, pairOf(core, raw), atLeast(GOALS.coreVsRaw), rps(core, raw) || skippedNote("node:http"));
      }
    }
  }
  for (const era of ERAS) {
    for (const c of CONFIG.concurrencies) {
      const row = at(`get_world${era.suffix}/pg`, c);
      const ceiling = at("ceiling", c);
      if (row && ceiling) add(`get_world${era.suffix}/pg p50 ÷ ceiling p50`, c, pairOf(row, ceiling, "p50"), atMost(GOALS.getWorldP50), `${fmt(row.p50, 2)} vs ${fmt(ceiling.p50, 2)} ms`, queryFloorOf(at(CEILING_BODY, c), at(directRowName("get_world", "pg"), c), ceiling));
    }
  }
  const pairs = coldPairs(cold);
  if (cold) {
    const n = pairs ? ` (medians of ${pairs.n})` : "";
    add("cold start: spawn → first good tools/list ÷ spawn → first good ceiling answer", "—", pairs?.start, atMost(GOALS.coldStart), pairs ? `${fmt(pairs.start.ours)} vs ${fmt(pairs.start.ceiling)} ms${n}` : cold.error ?? "");
    add("RSS after warm-up: our server ÷ a server that served only the ceiling", "—", pairs?.rss, atMost(GOALS.rss), pairs ? `${fmt(pairs.rss.ours / 1024, 1)} vs ${fmt(pairs.rss.ceiling / 1024, 1)} MiB${n}` : cold.error ?? "");
  }
  return out;
}

/** The summary table of the issue's targets. */
function targetsTable(rows, cold) {
  const lines = [
    "| target | c | measured | detail | per-round median [min–max] | goal | result | server-CPU view: CPU/req ratio, per-round [min–max], verdict | floor (ceiling+body), per-round [min–max], verdict |",
    "|---|--:|--:|---|--:|--:|---|--:|--:|",
  ];
  const verdict = (value, goal) => (!Number.isFinite(value) ? "not measured" : goal.ok(value) ? "pass" : "**miss**");
  // A side view of a target (server CPU, floor): its ratio, per-round [min–max] and verdict.
  const sideView = (ratio, goal) => (ratio ? `${fmt(ratio.value, 2)}x ${fmtSpread(ratio.spread).replace(/^[^ ]+ /, "")} ${verdict(ratio.value, goal)}` : "");
  for (const t of targetRows(rows, cold)) {
    const value = t.pair?.value;
    lines.push(`| ${t.target} | ${t.c} | ${Number.isFinite(value) ? `**${fmt(value, 2)}x**` : "n/a"} | ${t.detail} | ${fmtSpread(t.pair?.spread)} | ${t.goal.text} | ${verdict(value, t.goal)} | ${sideView(t.pair?.cpu, t.goal)} | ${sideView(t.floor, t.goal)} |`);
  }
  return lines;
}

/** A sample answer: its format and size. */
const answerOf = (row) => (row?.sample ? `${row.sample.format.toUpperCase()}, ${fmt(row.sample.bytes)} B` : "");

/** Our rows beside mcp-handler's, per request, era and c. */
function mcpHandlerTable(rows) {
  const lines = [
    "| request | c | WorldCrafter req/s | mcp-handler req/s | ours ÷ theirs | per-round median [min–max] | p50 ms ours / theirs | p99 ms ours / theirs | server CPU ms/req ours / theirs | answer ours / theirs |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const theirs of rows.filter((r) => r.concurrency === c && r.system.startsWith("mcp-handler "))) {
      const system = theirs.system.slice("mcp-handler ".length);
      const ours = rows.find((r) => r.system === system && r.concurrency === c);
      const pair = pairOf(ours, theirs);
      lines.push(
        `| ${system} | ${c} | ${fmt(ours?.rps)} | ${fmt(theirs.rps)} | ${pair ? `**${fmt(pair.value, 2)}x**` : ""} | ${fmtSpread(pair?.spread)} | ${fmt(ours?.p50, 2)} / ${fmt(theirs.p50, 2)} | ${fmt(ours?.p99, 2)} / ${fmt(theirs.p99, 2)} | ${fmt(ours?.cpuPerReq, 3)} / ${fmt(theirs.cpuPerReq, 3)} | ${answerOf(ours)} / ${answerOf(theirs)} |`,
      );
    }
  }
  return lines;
}

/** The core on node:http beside raw node:http, and beside the same request on next start. */
function nodeHttpTable(rows) {
  const lines = [
    "| system | c | req/s | ÷ node:http raw | per-round median [min–max] | p50 ms | p99 ms | server CPU ms/req | CPU − raw ms/req | same request on `next start` req/s | node:http ÷ next start |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const c of CONFIG.concurrencies) {
    const raw = rows.find((r) => r.system === NODE_RAW && r.concurrency === c);
    for (const r of rows.filter((row) => row.concurrency === c && row.system.startsWith("node:http"))) {
      const isRaw = r.system === NODE_RAW;
      const pair = isRaw ? undefined : pairOf(r, raw);
      const onNext = rows.find((row) => row.concurrency === c && row.system === (isRaw ? "ceiling" : r.system.slice("node:http core ".length)));
      lines.push(
        `| ${r.system} | ${c} | ${fmt(r.rps)} | ${isRaw ? "1.00x" : pair ? `**${fmt(pair.value, 2)}x**` : ""} | ${fmtSpread(pair?.spread)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${isRaw || !raw ? "" : signed(r.cpuPerReq - raw.cpuPerReq, 3)} | ${fmt(onNext?.rps)}${isRaw && onNext ? " (ceiling)" : ""} | ${onNext ? times(r.rps / onNext.rps) : ""} |`,
      );
    }
  }
  return lines;
}

/** The rows the issue added for more MCP requests, beside the tools/call of the same era. */
const MORE_REQUESTS = ["initialize", "server/discover@2026", "draft_world_outline+progress", "draft_world_outline+progress@2026", "create_world/pg", "create_world@2026/pg"];

function moreRequestsTable(rows) {
  const lines = [
    "| system | c | req/s | p50 ms | p99 ms | server CPU ms/req | CPU vs tools/call (same era) | vs ceiling req/s | answer |",
    "|---|--:|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const c of CONFIG.concurrencies) {
    for (const r of rows.filter((row) => row.concurrency === c && MORE_REQUESTS.includes(row.system))) {
      const call = rows.find((row) => row.concurrency === c && row.system === (r.system.includes("@2026") ? "tools/call@2026" : "tools/call"));
      lines.push(`| ${r.system} | ${c} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuPerReq, 3)} | ${call ? times(r.cpuPerReq / call.cpuPerReq) : ""} | ${times(r.ratio)} | ${answerOf(r)} |`);
    }
  }
  return lines;
}

/** Cold starts and memory, every run. */
function coldStartTable(cold) {
  const lines = ["| process | first answer | time to it, median ms | every run, ms | RSS after warm-up, median MiB | every run, MiB |", "|---|---|--:|---|--:|---|"];
  for (const [kind, label] of [["ceiling", "only the ceiling"], ["tools/list", "our MCP endpoint"]]) {
    const runs = cold.runs[kind];
    lines.push(
      `| \`next start\`, ${label} | ${COLD_PROBES[kind].label} | ${fmt(median(runs.map((r) => r.startMs)))} | ${runs.map((r) => fmt(r.startMs)).join(", ")} | ${fmt(median(runs.map((r) => r.rssKb)) / 1024, 1)} | ${runs.map((r) => fmt(r.rssKb / 1024, 1)).join(", ")} |`,
    );
  }
  return lines;
}

function renderMarkdown(rows, meta) {
  const lines = [];
  lines.push("# MCP endpoint benchmark");
  lines.push("");
  lines.push(`- Date: ${meta.date}`);
  lines.push(`- Node ${meta.machine.node}, Next.js ${meta.machine.next}, Linux ${meta.machine.kernel}`);
  lines.push(`- CPU: ${meta.machine.model}, ${meta.machine.cores} core(s) (client and server share them)`);
  if (meta.buildId) {
    const ours = meta.servers.filter((key) => (SERVERS[key].runtime ?? "next") === "next");
    const list = ours.map((key) => `\`${key}\``).join(", ");
    lines.push(`- Build: \`${CONFIG.distDir}\` (BUILD_ID ${meta.buildId}), \`next start\` on ${HOST} (server${ours.length > 1 ? "s" : ""} ${list}${meta.cold ? ", and the cold-start processes" : ""}), MCP_SESSION_MODE=stateful, MCP_LOG_REQUESTS=0${CONFIG.cpuProf ? ", **--cpu-prof on (numbers inflated)**" : ""}`);
    if (meta.servers.includes("node-core") || meta.servers.includes("node-raw")) {
      lines.push(`- \`node:http\` servers (bench/node-http-server.mjs, one process each): ${["node-raw", "node-core"].filter((k) => meta.servers.includes(k)).map((k) => `\`${k}\``).join(", ")}; node-core loads the core from the working tree's lib/ with jiti (not from the build), with main's settings`);
    }
    if (meta.mcpHandlerApp) {
      const app = meta.mcpHandlerApp;
      lines.push(`- mcp-handler app (server \`mcp-handler\`): ${Object.entries(app.versions).map(([pkg, v]) => `${pkg} ${v}`).join(", ")}; installed and built by the bench in \`${path.relative(ROOT, app.dir)}\`${app.cached ? " (cached from an earlier run)" : ""}`);
    }
    const off = meta.servers.filter((key) => isOurs(key) && !SERVERS[key].limiter);
    const limiting = meta.servers.filter((key) => SERVERS[key].limiter);
    if (off.length > 0) lines.push(`- Rate limits off (MCP_RATE_LIMITS=0) on ${off.map((key) => `\`${key}\``).join(", ")}`);
    if (limiting.length > 0) {
      const budgets = `budgets ${fmt(LIMIT_BUDGETS["tools/call"])} per ${LIMIT_WINDOW_SECONDS} s for tools/call, tools/list and the rest (never reached), MCP_RATE_LIMIT_FAILURE=closed`;
      lines.push(`- Rate limits on (MCP_RATE_LIMITS=1) on ${limiting.map((key) => `\`${key}\` (${SERVERS[key].limiter === "redis" ? "REDIS_URL" : "in process"})`).join(", ")}: ${budgets}`);
    }
  }
  if (meta.staleFiles.length > 0) {
    lines.push(`- **Stale build**: ${meta.staleFiles.length} file(s) under lib/ or app/ changed after it (e.g. ${meta.staleFiles.slice(0, 3).join(", ")})`);
  }
  for (const db of meta.databases) {
    const onIt = meta.servers.filter((key) => SERVERS[key].db === db.key).map((key) => `\`${key}\``);
    lines.push(`- ${db.label} (server${onIt.length > 1 ? "s" : ""} ${onIt.join(", ") || "none"}, …/${db.key} rows): ${db.description}`);
  }
  if (meta.redis) lines.push(`- Redis (server \`limits-redis\`, …limits:redis rows): ${meta.redis}`);
  if (meta.databases.length > 0) {
    const queries = Object.entries(meta.databases[0].queries).map(([query, fn]) => `prisma:${query} = \`${fn}\``);
    lines.push(`- Direct rows time lib/worlds/data/worlds.ts: ${queries.join(", ")}`);
    lines.push(`- Data in each database: ${WORLD_COUNT} worlds of the development subject, ${CHARACTERS_PER_WORLD} characters and ${LOCATIONS_PER_WORLD} locations each; get_world reads \`${TARGET_WORLD_ID}\`, list_worlds \`${JSON.stringify(LIST_ARGS)}\``);
  }
  lines.push(`- Machine load average (1 min): ${meta.loadavg} at start, ${meta.loadavgEnd} at the end — other work on the machine shows up as round-to-round spread`);
  if (meta.share) {
    const pct = (x) => `${fmt(x * 100)}%`;
    lines.push(
      `- Share of the machine's ${meta.machine.cores} cores during the timed rounds (/proc/stat): this bench's processes (client, servers, workers) ${pct(meta.share.ours)}, everything else ${pct(meta.share.others)} (PostgreSQL and Redis serving the bench included, and any other work on this shared machine), idle ${pct(meta.share.idle)}`,
    );
  }
  lines.push(`- Load: ${CONFIG.rounds} rounds x ${CONFIG.seconds} s per cell, systems interleaved (order rotated each round), ${CONFIG.warmupSeconds} s warm-up per cell before round 1`);
  lines.push("- Answers: every one is checked; JSON answers after their cell (kept as the body minus this request's `\"id\":n`, identical ones counted once), so the client's JSON.parse is not timed; SSE answers and header checks in the loop");
  if (meta.wallSeconds !== undefined) lines.push(`- Wall time of the whole run (install, seeding, start-up, warm-up, rounds, cold starts): ${fmt(meta.wallSeconds)} s`);
  lines.push("");
  const targets = targetsTable(rows, meta.cold);
  if (targets.length > 2) {
    lines.push("## Targets (issue 9)");
    lines.push("");
    lines.push(...targets);
    lines.push("");
    lines.push("measured = the aggregate ratio (requests ÷ wall time summed over rounds, or p50 over every request), and");
    lines.push("result = its verdict; per-round = the same ratio within each round (cold start, RSS: the i-th run of each");
    lines.push("kind), whose spread says how far to trust the verdict on this shared machine. The server-CPU view (req/s");
    lines.push("targets) is the reference's server CPU per request ÷ the row's: the req/s ratio if both servers were");
    lines.push("CPU-bound with the machine to themselves — it leaves out the load generator's own CPU (ours parses a");
    lines.push("bigger tools/list) and other work on the cores, so it is the steadier number here; the verdict stays the");
    lines.push("measured one.");
    lines.push("");
    lines.push("The floor is the same ratio for `ceiling+body`, the bare route plus `await request.text()`: the least");
    lines.push("any JSON-RPC endpoint on these route handlers must do, measured in the same rounds. For get_world at");
    lines.push(`c=1 it is ceiling+body's p50 plus the p50 of get_world's statement timed alone (\`${directRowName("get_world", "pg")}\`),`);
    lines.push("÷ the ceiling's p50: one request's parts, back to back. When the floor misses a goal, no endpoint built");
    lines.push("on these route handlers could meet that goal on this machine, whatever its own code costs.");
    lines.push("");
  }
  if (skipped.length > 0) {
    lines.push("**Skipped rows:**");
    for (const s of skipped) lines.push(`- ${s.names.join(", ")}: ${s.reason.replace(/\|/g, "\\|")}`);
    lines.push("");
  }
  lines.push("## All rows");
  lines.push("");
  lines.push(...throughputTable(rows));
  lines.push("");
  const flagged = rows.filter((r) => r.errors > 0);
  if (flagged.length > 0) {
    lines.push("**This run had errors; its numbers are not valid.**");
    for (const r of flagged) lines.push(`- ${r.system} c=${r.concurrency}: ${r.errors} errors, first: \`${String(r.firstError).replace(/`/g, "'")}\``);
    lines.push("");
  }
  if (rows.some((r) => r.db)) {
    lines.push("## get_world and list_worlds against the ceiling");
    lines.push("");
    lines.push(...databaseTable(rows));
    lines.push("");
    const target = targetLines(rows);
    if (target.length > 0) lines.push(...target, "");
  }
  const more = moreRequestsTable(rows);
  if (more.length > 2) {
    lines.push("## More MCP requests");
    lines.push("");
    lines.push(...more);
    lines.push("");
    lines.push("initialize (2025-11-25; a new session per request) runs on `initialize`, a twin of main kept for it, so the");
    lines.push("sessions it leaves (the store keeps 10,000, then evicts the oldest) never touch the other rows' sessions;");
    lines.push("server/discover is its 2026-07-28 counterpart (no session). draft_world_outline+progress sends");
    lines.push("`_meta.progressToken` (= the request id): the answer is an SSE stream of 10 notifications/progress and the");
    lines.push("result, read to its end; each must carry this token with progress 1…10 of 10, then the 10-section outline.");
    lines.push(`create_world writes a world per request on PostgreSQL as \`${SUBJECTS.writer}\`, a subject of its own, so the`);
    lines.push("read rows (the development subject's worlds, queried by owner) never see them; the schema is dropped at the end.");
    lines.push("");
  }
  const handler = mcpHandlerTable(rows);
  if (handler.length > 2) {
    lines.push("## WorldCrafter against mcp-handler");
    lines.push("");
    lines.push(...handler);
    lines.push("");
    lines.push("mcp-handler serves suggest_names (same schemas, annotations and name generator as ours) from a minimal");
    lines.push("Next app of the same Next.js version; its `createMcpHandler` builds an McpServer per request (stateless)");
    lines.push("and answers 2025-11-25 requests with an SSE stream (the stateless legacy fallback has no JSON mode) and");
    lines.push("2026-07-28 ones with JSON. Our tools/list lists the whole WorldCrafter catalog an anonymous caller sees");
    lines.push("(answer sizes above), theirs the one tool; our tools/call also queues an audit row (written in batches).");
    lines.push("Both sides' answers are checked (tools/list: a tool array; tools/call: three names, not isError).");
    lines.push("");
  }
  const nodeRows = nodeHttpTable(rows);
  if (nodeRows.length > 2) {
    lines.push("## The MCP core on plain node:http");
    lines.push("");
    lines.push(...nodeRows);
    lines.push("");
    lines.push("`node:http raw` answers every POST with the ceiling's fixed JSON (the request not read), the same request");
    lines.push("bytes as the ceiling row; `node:http core …` is the same server with /api/mcp handed to worldcrafterEndpoint()");
    lines.push("(lib/worlds/endpoint.ts, as app/api/mcp/route.ts does) through a minimal node → web Request / Response →");
    lines.push("node adapter (bench/node-http-server.mjs), same environment as main. Each is a process of its own, so");
    lines.push("its server CPU is its own. \"node:http ÷ next start\" compares the row with the same request on Next.");
    lines.push("");
  }
  if (meta.cold) {
    lines.push("## Cold start and memory");
    lines.push("");
    if (meta.cold.error) lines.push(`**Cold starts stopped early:** ${meta.cold.error}`, "");
    if (meta.cold.runs.ceiling.length + meta.cold.runs["tools/list"].length > 0) lines.push(...coldStartTable(meta.cold), "");
    lines.push("Fresh `next start` processes of the same build and settings as main (PostgreSQL, limits off), one per run,");
    lines.push("the two kinds alternating; time = from spawn() to the first HTTP 200 with a good result, polling every 5 ms.");
    lines.push("The ceiling kind then serves only POST /api/ceiling (c=8) for the warm-up; ours serves tools/list and tools/call");
    lines.push(`in both eras (a quarter each, c=8), ${CONFIG.rssWarmupSeconds} s in all; RSS = Σ VmRSS over the process tree (/proc/<pid>/status) after it.`);
    lines.push("");
  }
  const limiterSection = limiterTable(rows);
  if (limiterSection.length > 2) {
    lines.push("## Rate limiter cost");
    lines.push("");
    lines.push(...limiterSection);
    lines.push("");
    const added = limiterLines(rows);
    if (added.length > 0) lines.push(...added, "");
    lines.push("The same tools/call (suggest_names) sent to three twin servers on the same PostgreSQL schema:");
    lines.push("`main` with limits off (the tools/call row), `limits-memory` counting in process and `limits-redis`");
    lines.push("counting in Redis (@upstash/ratelimit's sliding window over ioredis, one EVALSHA per request). Budgets");
    lines.push("are never reached, so every request is counted and allowed. \"added\" = the row minus limits off at the");
    lines.push("same c; per-round = the same difference within each round. Server CPU is the `next start` tree's;");
    lines.push("Redis CPU = Δ used_cpu_user+used_cpu_sys of redis-server (INFO cpu) ÷ requests, measured for every");
    lines.push("cell, so on the limits-off and in-memory rows it is what others using the same Redis spent (its noise).");
    lines.push("At c=1 the added p50 is what one request waits for the limiter (for Redis, a round trip); at c=32");
    lines.push("requests queue in the server, so the added p50 there is mostly c × the added CPU, within a noise of");
    lines.push("several ms on a shared machine: read the CPU columns and their per-round spread first.");
    lines.push("");
  }
  lines.push("Method: closed loop, c workers each keeping one request in flight over a keep-alive `node:http` Agent");
  lines.push("(maxSockets = c, sockets connected before timing). req/s = requests / wall time summed over rounds;");
  lines.push("\"vs ceiling\" = req/s ÷ ceiling req/s at the same c; per-round = the same ratio within each round.");
  lines.push("Latency percentiles are over every request of all rounds. Server CPU = Δ utime+stime of the");
  lines.push("answering server's process tree (/proc/<pid>/stat) ÷ requests. The ceiling is `POST /api/ceiling`");
  lines.push("(a bare route returning a fixed JSON body) sent the same bytes and headers as tools/list. It never");
  lines.push("reads the request body, which any JSON-RPC route must do; `ceiling+body` (`POST /api/ceiling/read-body`)");
  lines.push("is the same route plus `await request.text()`, and \"vs ceiling+body\" is the ratio to it.");
  lines.push("Every response must be HTTP 200 with a JSON `result` for the request's id (tools/call: not `isError`;");
  lines.push("get_world and list_worlds: the seeded world with its counts, a full page; SSE only where a row says so),");
  lines.push("and from our /api/mcp the RateLimit-Limit header of its server's limiter, or none where limits are off.");
  lines.push("The server is one Node process, so once it saturates a core req/s ≈ 1 / server CPU per request:");
  lines.push("the CPU column is the noise-resistant view of the same ratio.");
  if (rows.some((r) => r.db)) {
    lines.push("");
    lines.push("Databases: the ceiling and the …/pg rows are served by the same `next start` (DATABASE_URL set);");
    lines.push("the …/pglite rows by a second one (PGLITE_DATA_DIR), idle while the others run. Server CPU of a");
    lines.push("…/pglite row includes the database (PGlite runs inside the server); of a …/pg row it does not");
    lines.push("(PostgreSQL's own processes are not counted). `prisma:…` rows run the functions of");
    lines.push("lib/worlds/data/worlds.ts that the tools' handlers call (named above; from the working tree, not the");
    lines.push("build) on a client opened by lib/db/prisma.ts in a child process, timed there with the same closed");
    lines.push("loop at the same c, with no HTTP or MCP in the way; their server CPU is that process's, and they have");
    lines.push("no separate client CPU. \"p50 vs ceiling p50\" = the row's p50 ÷ the ceiling's p50 at the same c;");
    lines.push("per-round = the same ratio within each round.");
    lines.push("tools/call (suggest_names, which reads no world data) is there to split a database row's distance from the ceiling");
    lines.push("into MCP (tools/call − ceiling) and data access (roughly the prisma:… row).");
  }
  lines.push("Reproduce: `npm run build && npm run bench` (env: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_CONCURRENCY, BENCH_SYSTEMS, BENCH_COLD_STARTS, BENCH_RSS_WARMUP_SECONDS, BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_MCP_HANDLER_VERSION, BENCH_MCP_SERVER_VERSION, NEXT_DIST_DIR, BENCH_OUT).");
  lines.push("");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** Migrates and seeds every database the selected systems use; returns them by key. */
async function prepareDatabases(systems) {
  const databases = new Map();
  const needed = new Set(systems.flatMap(databasesOf));
  for (const db of DATABASES.filter((d) => needed.has(d.key))) {
    const started = Date.now();
    const prepared = await db.prepare();
    cleanups.push(() => prepared.cleanup());
    databases.set(db.key, prepared);
    console.log(`[bench] ${prepared.description}: seeded ${JSON.stringify(prepared.counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return databases;
}

/** Connects to the Redis the limits:redis rows count in, if any selected row does. */
async function prepareRedisIfNeeded(systems) {
  if (!needsRedis(systems)) return undefined;
  const redis = await prepareRedis(CONFIG.redisUrl);
  cleanups.push(() => redis.close()); // registered before the servers': runs after they stopped
  console.log(`[bench] ${redis.description}`);
  return redis;
}

/**
 * Rows that could not run, and why: { group, names, reason }. Only optional rows (the other
 * stacks) are skipped this way; a failure of our own rows still fails the run.
 */
const skipped = [];

/** Drops the optional systems of `group` from `systems`, recording why; returns what is left. */
function skipGroup(systems, group, reason) {
  const names = systems.filter((s) => s.optional === group).map((s) => s.name);
  if (names.length === 0) return systems;
  skipped.push({ group, names, reason });
  console.warn(`[bench] skipping ${names.join(", ")}: ${reason}`);
  return systems.filter((s) => s.optional !== group);
}

/** Installs and builds the mcp-handler app if a selected row needs it; on failure its rows are skipped. */
async function prepareMcpHandlerIfNeeded(systems, context) {
  if (!systems.some((s) => !s.direct && SERVERS[serverKeyOf(s)].runtime === "mcp-handler")) return systems;
  try {
    const app = await prepareMcpHandlerApp();
    context.mcpHandlerApp = app;
    const list = Object.entries(app.versions).map(([pkg, v]) => `${pkg} ${v}`).join(", ");
    console.log(`[bench] mcp-handler app ${app.cached ? "cached" : "installed and built"} in ${path.relative(ROOT, app.dir)} (${list}; ${app.seconds.toFixed(1)} s)`);
    return systems;
  } catch (err) {
    return skipGroup(systems, "mcp-handler", `install/build failed: ${String(err?.message ?? err).split("\n")[0]}`);
  }
}

/**
 * Starts the servers the HTTP systems need (and only those), each on its database with its
 * limiter. A reference stack that does not start has its rows skipped; returns the systems left.
 */
async function startServers(systems, context) {
  let left = systems;
  for (const key of new Set(systems.filter((s) => !s.direct).map(serverKeyOf))) {
    const optional = systems.filter((s) => !s.direct && serverKeyOf(s) === key).map((s) => s.optional);
    try {
      await startServer(key, context);
    } catch (err) {
      const group = optional[0];
      if (!group || optional.some((g) => g !== group)) throw err;
      if (servers.has(key)) await stopServer(servers.get(key));
      servers.delete(key);
      left = skipGroup(left, group, `server ${key} did not start: ${String(err?.message ?? err).split("\n").slice(0, 3).join(" ")}`);
    }
  }
  return left;
}

// ---------------------------------------------------------------------------------------------
// Cold start and memory
// ---------------------------------------------------------------------------------------------
/** What a cold-started process must answer first: the ceiling, or a tools/list (2026-07-28: no handshake). */
const COLD_PROBES = {
  ceiling: { path: CEILING_PATH, body: rpc("tools/list"), headers: stubSession(), check: hasResult, label: "spawn → first good POST /api/ceiling" },
  "tools/list": { path: MCP_PATH, body: ERAS[1].body("tools/list"), headers: ERAS[1].headers("tools/list"), check: isToolList, label: "spawn → first good tools/list (2026-07-28) on /api/mcp" },
};

/** c for the memory warm-up loads. */
const RSS_WARMUP_CONCURRENCY = 8;

/** Closed-loop load on a transient server: `requests` share `seconds`; any wrong answer throws. */
async function loadServer(server, seconds, requests) {
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
async function warmForMemory(kind, server) {
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
 * of `kind`, polled every 5 ms, then its process tree's VmRSS after the memory warm-up.
 */
async function coldStart(kind, index, context) {
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
    await warmForMemory(kind, server);
    return { startMs, rssKb: treeRssKb(server.pid) };
  } finally {
    await stopServer(server);
    transient.delete(server);
  }
}

/** BENCH_COLD_STARTS of each kind, alternating which goes first; never fails the run. */
async function measureColdStarts(context) {
  const runs = { ceiling: [], "tools/list": [] };
  try {
    for (let i = 0; i < CONFIG.coldStarts; i++) {
      for (const kind of i % 2 === 0 ? ["ceiling", "tools/list"] : ["tools/list", "ceiling"]) {
        const r = await coldStart(kind, i, context);
        runs[kind].push(r);
        console.log(`[bench] cold start ${i + 1}/${CONFIG.coldStarts} ${kind.padEnd(10)} ${fmt(r.startMs)} ms to the first good answer, RSS ${fmt(r.rssKb / 1024, 1)} MiB after warm-up`);
      }
    }
    return { runs };
  } catch (err) {
    console.error(`[bench] cold starts failed: ${err?.message ?? err}`);
    return { runs, error: String(err?.message ?? err).split("\n")[0] };
  }
}

/** CPU time of the whole machine and of this bench's process tree (servers, workers), for the share of other work. */
function cpuShareSnapshot() {
  return { machine: machineCpuMs(), ours: treeCpuMs(process.pid) };
}

function cpuShare(before, after) {
  const total = after.machine.total - before.machine.total;
  const busy = after.machine.busy - before.machine.busy;
  const ours = after.ours - before.ours;
  return { ours: ours / total, others: Math.max(0, busy - ours) / total, idle: 1 - busy / total };
}

async function main() {
  const started = Date.now();
  const loadavg = os.loadavg()[0].toFixed(2);
  let { systems, coldStart: withColdStart } = defineSystems();
  const overHttp = systems.some((s) => !s.direct) || withColdStart;
  const staleFiles = overHttp ? ensureBuild() : [];
  const buildId = overHttp ? fs.readFileSync(path.join(ROOT, CONFIG.distDir, "BUILD_ID"), "utf8").trim() : undefined;
  const context = {};
  systems = await prepareMcpHandlerIfNeeded(systems, context);
  context.redis = await prepareRedisIfNeeded(systems); // before the seeding: a missing Redis fails fast
  // The cold starts run the main server's settings: its database too.
  context.databases = await prepareDatabases(withColdStart ? [...systems, { name: COLD_START, db: "pg", direct: true }] : systems);
  systems = await startServers(systems, context);

  const cells = [];
  const estimate = CONFIG.concurrencies.length * systems.length * (CONFIG.rounds * CONFIG.seconds + CONFIG.warmupSeconds);
  console.log(`[bench] ${systems.length} systems, ${CONFIG.rounds} rounds x ${CONFIG.seconds} s, c=${CONFIG.concurrencies.join(",")}: ~${Math.round(estimate)} s`);

  // Warm-up: JIT, route bundles, database connections and caches reach steady state before anything
  // counts. A reference stack that answers wrongly here is skipped (with the reason), not fatal.
  if (CONFIG.warmupSeconds > 0) {
    for (const c of CONFIG.concurrencies) {
      for (const s of [...systems]) {
        if (!systems.includes(s)) continue;
        const w = await runCell(s, context, c, CONFIG.warmupSeconds);
        if (w.errors === 0) continue;
        const why = `warm-up ${s.name} c=${c}: ${w.errors} errors, first: ${w.firstError}`;
        if (!s.optional) throw new Error(why);
        systems = skipGroup(systems, s.optional, why);
      }
    }
  }

  const share0 = cpuShareSnapshot();
  const width = Math.max(...systems.map((s) => s.name.length));
  for (let round = 0; round < CONFIG.rounds; round++) {
    // Rotate the order so no system always runs first (or right after the heaviest one).
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const c of CONFIG.concurrencies) {
      for (const s of order) {
        const { window, ...r } = await runCell(s, context, c, CONFIG.seconds);
        // HTTP cells only (a direct cell runs in its database's worker, not in a server).
        if (window) servers.get(serverKeyOf(s)).windows.push({ system: s.name, concurrency: c, round, ...window, requests: r.ok + r.errors });
        cells.push({ system: s.name, concurrency: c, round, ...r });
        const rps = ((r.ok + r.errors) / r.wallMs) * 1000;
        const sorted = ascending(r.latencies);
        const ms = (p) => fmt(percentile(sorted, p), 2).padStart(7);
        console.log(
          `[bench] round ${round + 1}/${CONFIG.rounds} c=${String(c).padStart(2)} ${s.name.padEnd(width)} ${fmt(rps).padStart(7)} req/s  p50 ${ms(50)} ms  p99 ${ms(99)} ms  server ${fmt(r.serverMs / (r.ok + r.errors), 3)} ms/req${r.errors ? `  ${r.errors} ERRORS` : ""}`,
        );
      }
    }
  }
  const share = cpuShare(share0, cpuShareSnapshot());

  const cold = withColdStart ? await measureColdStarts(context) : undefined;

  const rows = summarize(systems, cells);
  const markdown = renderMarkdown(rows, {
    date: new Date().toISOString(),
    machine: machine(),
    buildId,
    servers: [...servers.keys()],
    databases: DATABASES.filter((d) => context.databases.has(d.key)).map((d) => ({ ...d, description: context.databases.get(d.key).description, queries: context.databases.get(d.key).worker.queries })),
    redis: context.redis?.description,
    mcpHandlerApp: context.mcpHandlerApp,
    loadavg,
    loadavgEnd: os.loadavg()[0].toFixed(2),
    share,
    staleFiles,
    cold,
    wallSeconds: (Date.now() - started) / 1000,
  });
  console.log(`\n${markdown}`);
  fs.writeFileSync(CONFIG.out, markdown);
  console.log(`[bench] wrote ${path.relative(ROOT, CONFIG.out)} (${fmt((Date.now() - started) / 1000)} s)`);
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  console.error(`[bench] failed: ${err?.stack ?? err}`);
  for (const server of servers.values()) {
    if (server.log.length) console.error(`[bench] server ${server.key} log tail:\n${server.log.slice(-20).join("\n")}`);
  }
} finally {
  await cleanUp();
  if (CONFIG.cpuProf) {
    for (const server of servers.values()) {
      const base = path.join(PROFILE_DIR, `${PROFILE_NAME}_${server.key}`);
      fs.writeFileSync(`${base}.json`, JSON.stringify({ systems: CONFIG.systems ?? "all", server: server.key, requests: server.served, windows: server.windows }, null, 2));
      console.log(`[bench] profile: ${path.relative(ROOT, base)}.cpuprofile (${server.served} requests); node bench/profile-top.mjs ${path.relative(ROOT, base)}.cpuprofile`);
    }
  }
}
process.exit(exitCode);
