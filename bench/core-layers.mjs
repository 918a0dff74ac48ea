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
import { importBundled } from "./core-bundle.mjs";
import { preparePostgres } from "./databases.mjs";

const database = await preparePostgres(process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test");
Object.assign(process.env, {
  NODE_ENV: "production",
  MCP_AUTH_MODE: "mixed",
  BETTER_AUTH_SECRET: "bench-only-better-auth-secret-0123456789abcdef",
  MCP_RATE_LIMITS: "0",
  MCP_LOG_REQUESTS: "0",
  DATABASE_URL: database.serverEnv.DATABASE_URL,
});

const method = process.argv[2] ?? "tools/call";
const requests = Number(process.argv[3] ?? 20_000);
if (!["tools/call", "tools/list"].includes(method)) throw new Error(`method must be tools/call or tools/list, got ${method}`);

const { worldcrafterEndpoint } = await importBundled("lib/worlds/endpoint.ts");
const endpoint = worldcrafterEndpoint();
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "core-layers", version: "1.0.0" }, "io.modelcontextprotocol/clientCapabilities": {} };
const call = method === "tools/call" ? { name: "suggest_names", arguments: { style: "elvish", count: 3 } } : {};
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...call, _meta: meta } });
const headers = {
  host: "127.0.0.1:3000",
  "content-type": "application/json",
  "content-length": String(Buffer.byteLength(body)),
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(call.name ? { "mcp-name": call.name } : {}),
};
const URL_ = "http://127.0.0.1:3000/api/mcp";
const build = () => new Request(URL_, { method: "POST", headers, body });
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
