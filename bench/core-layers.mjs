#!/usr/bin/env node
/**
 * What the web layers around the core cost by themselves, per request, in this process: the same
 * 2026-07-28 tools/call (or tools/list) request as bench/core-inprocess.mjs, taken apart. Each line
 * does everything the line above does, plus one step, so the differences are each step's cost:
 *
 *   1. build the Request (URL, headers, body)          4. + a Response of the real answer's bytes (a
 *   2. + read its body (request.text())                   string made once), read (response.text())
 *   3. + JSON.parse it                                 5. the whole core: endpoint.handle() + text()
 *
 * Line 5 − line 4 is what the core adds between parsing and the bytes of its answer: checks,
 * dispatch, validation, the handler, serializing (bench/PROFILING.md splits it with a CPU profile).
 *
 *   tests/node24/node_modules/.bin/node bench/core-layers.mjs [tools/call|tools/list] [requests]
 */
import { prepareCoreRequest } from "./core-request.mjs";

const { method, requests, database, endpoint, build } = await prepareCoreRequest("core-layers");

// The real answer, once: its bytes (encoded once, as the core keeps a tools/list page) are what
// layer 4 answers. Encoding a 20 KB string per request would cost more than the whole core.
const answer = await (await endpoint.handle(build())).text();
const answerBytes = new TextEncoder().encode(answer);

const layers = [
  ["1. build the Request", async () => void build()],
  ["2. + request.text()", async () => void (await build().text())],
  ["3. + JSON.parse", async () => void JSON.parse(await build().text())],
  [
    "4. + a Response of the answer's bytes, response.text()",
    async () => {
      JSON.parse(await build().text());
      await new Response(answerBytes, { headers: { "content-type": "application/json" } }).text();
    },
  ],
  ["5. the whole core: endpoint.handle(), response.text()", async () => void (await (await endpoint.handle(build())).text())],
];

async function time(fn, count) {
  for (let i = 1; i <= count; i++) {
    await fn();
    if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

const results = [];
for (const [name, fn] of layers) {
  await time(fn, 3_000); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await time(fn, requests);
  const wall = Number(process.hrtime.bigint() - t0) / 1000 / requests;
  const cpu = process.cpuUsage(cpu0);
  results.push({ name, wall, cpu: (cpu.user + cpu.system) / requests });
}
console.log(`${method} on Node ${process.version}, ${requests} requests per line (answer ${Buffer.byteLength(answer)} B)`);
let previous = 0;
for (const r of results) {
  console.log(`${r.name.padEnd(62)} ${r.wall.toFixed(1).padStart(6)} µs wall  ${r.cpu.toFixed(1).padStart(6)} µs CPU   step +${(r.wall - previous).toFixed(1)} µs`);
  previous = r.wall;
}
await new Promise((resolve) => setTimeout(resolve, 200));
await database.cleanup();
process.exit(0);
