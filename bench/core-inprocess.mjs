#!/usr/bin/env node
/**
 * The MCP core's own cost per request, with no HTTP server and no framework: web Requests built
 * in this process go straight to worldcrafterEndpoint().handle() (the object app/api/mcp/route.ts
 * hands Next's requests to), and each answer is read whole. The core is bundled as a deployed
 * build bundles it (bench/core-bundle.mjs). Steadier than the HTTP rows on a
 * shared machine, so it is what the profiling rounds in bench/PROFILING.md compare.
 *
 *   tests/node24/node_modules/.bin/node bench/core-inprocess.mjs [tools/call|tools/list] [requests]
 *   BENCH_PROFILE_SIDECAR=bench/.work/profiles/call.json tests/node24/node_modules/.bin/node --cpu-prof \
 *     --cpu-prof-interval 100 --cpu-prof-dir=bench/.work/profiles --cpu-prof-name=call.cpuprofile bench/core-inprocess.mjs tools/call
 *   node bench/profile-top.mjs bench/.work/profiles/call.cpuprofile   # µs per timed request, by function
 *
 * (On Node 24, as the bench; `npm run bench` installs that Node, or `npm ci` in tests/node24.)
 *
 * Allocation per request (bench/PROFILING.md, round 12): with a young generation big enough that
 * no collection runs in the window, the heap's growth over the requests is what they allocated:
 *   tests/node24/node_modules/.bin/node --min-semi-space-size=256 --max-semi-space-size=256 bench/core-inprocess.mjs tools/call
 * and BENCH_ALLOC_PROFILE=1 adds V8's sampling heap profile, bytes per request by the nearest lib/ frame.
 * Beside it, the floor in process: the same Request, its body read, the same answer bytes, timed
 * before and after ours (their mean is reported), so the core's own share is ours − the floor.
 * Uses a fresh, migrated schema in the PostgreSQL at BENCH_DATABASE_URL (default: the local `test`
 * database; dropped at the end) for the audit rows suggest_names writes; 2026-07-28 requests,
 * anonymous (MCP_AUTH_MODE=mixed), limits off.
 */
import { writeFileSync } from "node:fs";
import inspector from "node:inspector/promises";
import v8 from "node:v8";
import { PerformanceObserver, constants as perfConstants } from "node:perf_hooks";
import { prepareCoreRequest } from "./core-request.mjs";

const { method, requests, database, endpoint, build } = await prepareCoreRequest("core-inprocess");

const ours = (request) => endpoint.handle(request);

/**
 * The floor in process, like the HTTP rows' ceiling+body / ceiling+page: read the request's body,
 * answer the bytes our endpoint answered (recorded in the warm-up). What is left between the two
 * rows is the core's own work: parse, checks, dispatch, validation, serialization.
 */
let recorded = new Uint8Array(0);
const floor = async (request) => {
  await request.text();
  return new Response(recorded, { headers: { "content-type": "application/json" } });
};

/**
 * One request through `handler`; the answer's body is read chunk by chunk, as a host sends it on
 * (joining the chunks, or decoding them to text, would add a copy no host makes).
 */
async function one(handler) {
  const response = await handler(build());
  let length = 0;
  for await (const chunk of response.body) length += chunk.byteLength;
  if (response.status !== 200 || length === 0) throw new Error(`HTTP ${response.status}, ${length} bytes`);
}

/** The answer's bytes, whole (recorded once for the floor, and checked). */
async function answerBytes(handler) {
  const response = await handler(build());
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  if (response.status !== 200 || !text.includes('"result"')) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  return bytes;
}

/** Runs `count` requests one after another, yielding to the event loop now and then (timers: the audit flush). */
async function run(count, handler = ours) {
  for (let i = 1; i <= count; i++) {
    await one(handler);
    if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

await run(3_000); // warm-up: JIT, caches, the database connection
recorded = await answerBytes(ours);
await run(3_000, floor);
/** Wall µs per request of `count` requests through `handler` (after the warm-ups above). */
async function timedFloor(count) {
  const t0 = process.hrtime.bigint();
  await run(count, floor);
  return Number(process.hrtime.bigint() - t0) / 1000 / count;
}
const floorBeforeUs = await timedFloor(requests);
// The collector's pauses in the timed window (bench/PROFILING.md round 9: a request's objects
// that outlive one scavenge are what the collector pays for).
const gc = { minor: 0, major: 0, ms: 0 };
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.ms += entry.duration;
    if (entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
    else gc.major++;
  }
});
gcObserver.observe({ entryTypes: ["gc"] });
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
await run(requests);
const t1 = process.hrtime.bigint();
const wallUs = Number(t1 - t0) / 1000 / requests;
// With --cpu-prof: the timed window (monotonic µs, the profile's clock) beside the profile, so
// bench/profile-top.mjs reports µs per request of the timed requests alone, not start-up or warm-up.
if (process.env.BENCH_PROFILE_SIDECAR) {
  const us = (t) => Number(t / 1000n);
  writeFileSync(process.env.BENCH_PROFILE_SIDECAR, JSON.stringify({ requests, windows: [{ system: method, concurrency: 1, round: 0, startUs: us(t0), endUs: us(t1), requests }] }));
}
const cpu = process.cpuUsage(cpu0);
await new Promise((resolve) => setImmediate(resolve)); // the observer hears of the last pauses
gcObserver.disconnect();
const gcUs = (gc.ms * 1000) / requests;
const floorAfterUs = await timedFloor(requests);
const floorUs = (floorBeforeUs + floorAfterUs) / 2;
console.log(`${method}: ${requests} requests on Node ${process.version}, ${wallUs.toFixed(1)} µs wall and ${((cpu.user + cpu.system) / requests).toFixed(1)} µs CPU per request (Request built, handled, answer read)`);
console.log(`  garbage collection: ${gcUs.toFixed(1)} µs per request (${((100 * gcUs) / wallUs).toFixed(0)}% of wall), ${gc.minor} scavenges, ${gc.major} other collections`);
console.log(`  floor (body read, the same ${recorded.byteLength} answer bytes): ${floorUs.toFixed(1)} µs wall (${floorBeforeUs.toFixed(1)} before, ${floorAfterUs.toFixed(1)} after); ours − the floor (the core's own work, less any copy the floor makes that ours does not): ${(wallUs - floorUs).toFixed(1)} µs`);
await reportAllocation();
await new Promise((resolve) => setTimeout(resolve, 200)); // the last audit batch
await database.cleanup();
process.exit(0);

/**
 * KiB allocated per request, ours and the floor's: the heap's growth over requests in which no
 * collection ran (else it cannot be read this way, and it says how to run so none does).
 */
async function allocatedKiB(handler, count) {
  let collections = 0;
  const observer = new PerformanceObserver((list) => (collections += list.getEntries().length));
  observer.observe({ entryTypes: ["gc"] });
  const before = v8.getHeapStatistics().used_heap_size;
  for (let i = 0; i < count; i++) await one(handler);
  const grown = v8.getHeapStatistics().used_heap_size - before;
  // Collections are reported asynchronously; a heap that shrank had one whatever was reported.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  return collections === 0 && grown > 0 ? (grown / count / 1024).toFixed(2) : undefined;
}

/** Bytes per request by the nearest lib/ frame that allocated them (V8's sampling heap profiler). */
async function allocationByFrame(count = 5_000) {
  const session = new inspector.Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", { samplingInterval: 32, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = 0; i < count; i++) await one(ours);
  const { profile } = await session.post("HeapProfiler.getSamplingProfile");
  await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  const byFrame = new Map();
  const walk = (node, nearest) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const lib = url.indexOf("/lib/");
    const here = lib >= 0 ? `${functionName || "(anonymous)"} ${url.slice(lib + 1)}:${lineNumber + 1}` : nearest;
    if (node.selfSize > 0) byFrame.set(here, (byFrame.get(here) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, "(no lib/ frame: the Request, the web streams, the harness)");
  return [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([frame, bytes]) => [frame, bytes / count]);
}

async function reportAllocation() {
  // A tools/list floor copies its 59 KB page per request: external memory, which sets off collections sooner.
  const count = method === "tools/list" ? 300 : 1_000;
  const [oursKiB, floorKiB] = [await allocatedKiB(ours, count), await allocatedKiB(floor, count)];
  const shown = (kib) => (kib === undefined ? "n/a (a collection ran in the window; run with --min-semi-space-size=256 --max-semi-space-size=256)" : `${kib} KiB`);
  console.log(`  allocation per request: ours ${shown(oursKiB)}, the floor ${shown(floorKiB)} (the Request, its body and the answer's stream are in both)`);
  if (process.env.BENCH_ALLOC_PROFILE !== "1") return;
  console.log("  allocation by nearest lib/ frame (bytes per request):");
  for (const [frame, bytes] of await allocationByFrame()) console.log(`    ${String(Math.round(bytes)).padStart(6)}  ${frame}`);
}
