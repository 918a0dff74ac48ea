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
// The adapter is the minimum any host needs: node request → web Request, web Response → node
// response, streaming the body (SSE answers included) and aborting the Request when the client
// goes away. Every other path answers the fixed JSON body of app/api/ceiling/route.ts without
// reading the request, in both modes: it is the raw row, and the bench's readiness probe.
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

let endpoint;
if (MODE === "core") {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url);
  const { worldcrafterEndpoint } = await jiti.import("../lib/worlds/endpoint.ts");
  // The same start-up check Next's instrumentation.ts runs: a bad auth configuration exits here.
  const { checkStartup } = await jiti.import("../lib/worlds/startup.ts");
  checkStartup();
  // No `after` outside Next: the audit sink writes its batches on its own timer.
  endpoint = worldcrafterEndpoint();
}

const ORIGIN = `http://${HOST.includes(":") ? `[${HOST}]` : HOST}:${PORT}`;
const NO_BODY = new Set(["GET", "HEAD"]);

/** node request → web Request (body buffered: JSON-RPC bodies are small and read whole anyway). */
async function toRequest(req, signal) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  let body;
  if (!NO_BODY.has(req.method)) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    body = Buffer.concat(chunks);
  }
  return new Request(`${ORIGIN}${req.url}`, { method: req.method, headers, body, signal });
}

/** web Response → node response: JSON whole, an event stream as it comes. */
async function send(response, res) {
  const headers = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  if (response.body && !headers["content-type"]?.startsWith("text/event-stream")) {
    // A JSON answer is complete when the Response exists: read it whole and send it in one
    // write with its length (no chunked framing, no read loop over a web stream).
    const body = new Uint8Array(await response.arrayBuffer());
    headers["content-length"] = body.byteLength;
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Honour back-pressure, as Next does: a slow reader must not make the server buffer a stream.
    if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
  }
  res.end();
}

const server = http.createServer((req, res) => {
  if (!endpoint || !(req.url === MCP_PATH || req.url.startsWith(`${MCP_PATH}?`))) {
    req.resume(); // not read, as the ceiling route does not read it; drained so keep-alive works
    res.writeHead(200, JSON_HEADERS);
    res.end(BODY);
    return;
  }
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort(new Error("the client went away"));
  });
  toRequest(req, abort.signal)
    .then((request) => endpoint.handle(request))
    .then((response) => send(response, res))
    .catch((err) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(String(err?.message ?? err));
      } else res.destroy(err);
    });
});
// Same keep-alive timeout as Next's server, so idle sockets are treated alike.
server.keepAliveTimeout = 5_000;
server.listen(PORT, HOST, () => console.log(`[node-http-server] ${MODE} on ${ORIGIN}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections?.());
