#!/usr/bin/env node
// A plain `node:http` server for bench/run.mjs, started as a child process of its own so its CPU
// and memory can be read from /proc like any `next start`'s.
//
//   BENCH_NODE_MODE=raw  node bench/node-http-server.mjs   # every POST: the ceiling's fixed JSON
//   BENCH_NODE_MODE=core node bench/node-http-server.mjs   # the same, and /api/mcp = the MCP core
//
// Listens on BENCH_NODE_HOST:BENCH_NODE_PORT (loopback only). In `core` mode POST/GET/DELETE… on
// /api/mcp go to the product's endpoint (lib/worlds/endpoint.ts: worldcrafterEndpoint(), the very
// object app/api/mcp/route.ts hands Next's requests to), loaded from the TypeScript sources with
// jiti, with the environment the bench gives every server (database, auth mode, limits off…).
// They are served through lib/http/node-adapter.ts, the adapter the product offers for hosting
// the core without Next (node request → web Request, web Response → node response, streams
// kept, the Request aborted when the client goes away). Every other path answers the fixed JSON
// body of app/api/ceiling/route.ts without reading the request, in both modes: it is the raw
// row, and the bench's readiness probe.
import http from "node:http";

const HOST = process.env.BENCH_NODE_HOST || "127.0.0.1";
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
if (!LOOPBACK.has(HOST)) throw new Error(`BENCH_NODE_HOST must be a loopback address, got ${HOST}`);
const PORT = Number(process.env.BENCH_NODE_PORT);
if (!Number.isInteger(PORT) || PORT <= 0) throw new Error("BENCH_NODE_PORT must be a port number");
const MODE = process.env.BENCH_NODE_MODE;
if (MODE !== "raw" && MODE !== "core") throw new Error(`BENCH_NODE_MODE must be raw or core, got ${MODE}`);

const MCP_PATH = "/api/mcp";
// Byte for byte the ceiling route's answer (app/api/ceiling/route.ts).
const BODY = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } }));
const JSON_HEADERS = { "content-type": "application/json", "content-length": BODY.length };

const ORIGIN = `http://${HOST.includes(":") ? `[${HOST}]` : HOST}:${PORT}`;

let serveCore;
if (MODE === "core") {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url);
  const { worldcrafterEndpoint } = await jiti.import("../lib/worlds/endpoint.ts");
  // The same start-up check Next's instrumentation.ts runs: a bad auth configuration exits here.
  const { checkStartup } = await jiti.import("../lib/worlds/startup.ts");
  checkStartup();
  const { loadEnv } = await jiti.import("../lib/config/env.ts");
  // The product's own adapter (lib/http/node-adapter.ts), as a team hosting the core without Next
  // would mount it. No `after` outside Next: the audit sink writes its batches on its own timer.
  const { nodeListener } = await jiti.import("../lib/http/node-adapter.ts");
  const env = loadEnv();
  serveCore = nodeListener(worldcrafterEndpoint(), { baseUrl: ORIGIN, maxBodyBytes: env.MCP_MAX_BODY_BYTES, bodyTimeoutMs: env.MCP_BODY_TIMEOUT_MS });
}

const server = http.createServer((req, res) => {
  if (serveCore && (req.url === MCP_PATH || req.url.startsWith(`${MCP_PATH}?`))) {
    serveCore(req, res);
    return;
  }
  req.resume(); // not read, as the ceiling route does not read it; drained so keep-alive works
  res.writeHead(200, JSON_HEADERS);
  res.end(BODY);
});
// Same keep-alive timeout as Next's server, so idle sockets are treated alike.
server.keepAliveTimeout = 5_000;
server.listen(PORT, HOST, () => console.log(`[node-http-server] ${MODE} on ${ORIGIN}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections?.());
