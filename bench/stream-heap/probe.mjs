/**
 * Preloaded (--import) into the `next start` that bench/stream-heap/run.mjs measures; never part
 * of the app. On SIGUSR2: two full collections, then one JSON line of process.memoryUsage() to
 * BENCH_HEAP_PROBE_OUT. A request carrying `x-bench-raw-sse` is answered by node:http itself with
 * an open SSE response (one shared keep-alive timer), bypassing Next: the floor of an idle stream.
 */
import fs from "node:fs";
import http from "node:http";
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const out = process.env.BENCH_HEAP_PROBE_OUT;

process.on("SIGUSR2", () => {
  gc();
  gc();
  if (out) fs.appendFileSync(out, `${JSON.stringify(process.memoryUsage())}\n`);
});

const raw = new Set();
setInterval(() => {
  for (const res of raw) res.write(": keep-alive\n\n");
}, 5_000).unref();

const createServer = http.createServer;
http.createServer = function probedCreateServer(...args) {
  const at = args.findIndex((a) => typeof a === "function");
  if (at >= 0) {
    const listener = args[at];
    args[at] = function probedListener(req, res) {
      if (!req.headers["x-bench-raw-sse"]) return listener.call(this, req, res);
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      raw.add(res);
      res.on("close", () => raw.delete(res));
    };
  }
  return createServer.apply(this, args);
};
