/**
 * Live heap per idle stream, by kind (issue 22, bench/PROFILING.md round 9). The idle-streams cell
 * (bench/cells/idle-streams.mjs) reads RSS, which counts garbage the heap has not collected and
 * depends on the order the kinds open in; this reads the heap after full collections instead.
 *
 * One `next start` of the build (NEXT_DIST_DIR) with probe.mjs preloaded, on a fresh PostgreSQL
 * schema, the idle-streams cell's settings. Opened in turn, the heap read after each step:
 * N node:http SSE responses outside Next, N GET streams of 2025-11-25 sessions, N
 * subscriptions/listen, and N bare Next route streams (POST /api/ceiling/stream: the idle-streams
 * cell's floor, what any route handler on the framework holds per open response). Prints KiB per
 * stream of each kind.
 *
 *   node bench/stream-heap/run.mjs        (BENCH_HEAP_STREAMS per kind, default 2000)
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startNextServer } from "../../tests/support/next-server.mjs";
import { ACCEPT, ERAS, openSession, sleep } from "../cells/client.mjs";
import { CONFIG, envNumber, HOST, MCP_PATH } from "../config.mjs";
import { preparePostgres } from "../databases.mjs";
import { reexecOnNode24 } from "../runtime.mjs";
import { STREAMS_ENV } from "../servers/streams-env.mjs";

const code = await reexecOnNode24(fileURLToPath(import.meta.url));
if (code !== undefined) process.exit(code);

/** The idle-streams cell's floor: a bare route handler holding an SSE response open (lib/bench/ceiling-routes.ts). */
const FLOOR_STREAM_PATH = "/api/ceiling/stream";
const N = envNumber("BENCH_HEAP_STREAMS", 2000, { min: 10, integer: true });
const WAVE = 64;
const probeOut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "stream-heap-")), "heap.jsonl");

async function inWaves(count, task) {
  let next = 0;
  await Promise.all(Array.from({ length: WAVE }, async () => {
    while (next < count) await task(next++);
  }));
}

/** Opens one stream on a connection of its own; resolves at its first bytes. */
function openStream(port, { method, body, headers, path: urlPath = MCP_PATH }) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request({ host: HOST, port, path: urlPath, method, agent: false, headers: { ...headers, ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}) } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${method} stream: HTTP ${res.statusCode}`));
        return;
      }
      res.once("data", () => resolve(req));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** The server's heap after full collections (probe.mjs answers SIGUSR2). */
async function heapUsed(pid) {
  await sleep(1000);
  const before = fs.existsSync(probeOut) ? fs.readFileSync(probeOut, "utf8").split("\n").filter(Boolean).length : 0;
  process.kill(pid, "SIGUSR2");
  for (;;) {
    await sleep(100);
    const lines = fs.existsSync(probeOut) ? fs.readFileSync(probeOut, "utf8").split("\n").filter(Boolean) : [];
    if (lines.length > before) return JSON.parse(lines[lines.length - 1]).heapUsed;
  }
}

const database = await preparePostgres(CONFIG.databaseUrl);
const server = await startNextServer({
  env: {
    ...database.serverEnv,
    NODE_OPTIONS: `--import ${path.join(path.dirname(fileURLToPath(import.meta.url)), "probe.mjs")}`,
    BENCH_HEAP_PROBE_OUT: probeOut,
    NEXT_DIST_DIR: CONFIG.distDir,
    MCP_RATE_LIMITS: "0",
    MCP_SESSION_MODE: "stateful",
    MCP_BENCH_ROUTES: "1",
    ...STREAMS_ENV,
  },
});
const open = [];
try {
  const target = { port: server.port };
  const sessions = new Array(N);
  await inWaves(N, async (i) => {
    sessions[i] = await openSession(target);
  });
  const h0 = await heapUsed(server.pid);
  await inWaves(N, async () => open.push(await openStream(server.port, { method: "GET", headers: { accept: "text/event-stream", "x-bench-raw-sse": "1" } })));
  const h1 = await heapUsed(server.pid);
  await inWaves(N, async (i) => open.push(await openStream(server.port, { method: "GET", headers: { ...sessions[i], accept: "text/event-stream" } })));
  const h2 = await heapUsed(server.pid);
  const modern = ERAS[1];
  await inWaves(N, async (i) => {
    const body = modern.body("subscriptions/listen", { notifications: { toolsListChanged: true } })(i + 1);
    open.push(await openStream(server.port, { method: "POST", body, headers: { ...modern.headers("subscriptions/listen"), accept: ACCEPT } }));
  });
  const h3 = await heapUsed(server.pid);
  await inWaves(N, async () => open.push(await openStream(server.port, { method: "POST", path: FLOOR_STREAM_PATH, body: "{}", headers: { accept: "text/event-stream" } })));
  const h4 = await heapUsed(server.pid);
  const kib = (bytes) => (bytes / 1024 / N).toFixed(1);
  console.log(`live heap per idle stream (${N} of each kind, Node ${process.version}, ${CONFIG.distDir}):`);
  console.log(`  node:http SSE response, outside Next: ${kib(h1 - h0)} KiB`);
  console.log(`  GET stream (2025-11-25 session):      ${kib(h2 - h1)} KiB`);
  console.log(`  subscriptions/listen (2026-07-28):    ${kib(h3 - h2)} KiB`);
  console.log(`  bare Next route stream (${FLOOR_STREAM_PATH}, the floor): ${kib(h4 - h3)} KiB`);
} finally {
  for (const req of open) req.destroy();
  await server.stop();
  await database.cleanup();
  fs.rmSync(path.dirname(probeOut), { recursive: true, force: true });
}
