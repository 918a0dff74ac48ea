// A reverse proxy that sends each request to the next upstream in turn — the harshest stand-in
// for a serverless platform, where consecutive requests of one client reach different instances.
// Streams (SSE) are piped through as they arrive. Loopback only.
import http from "node:http";

/** A request body kept for a second try up to this size; a larger one is only streamed. */
const REPLAYABLE_BODY_BYTES = 1024 * 1024;

/**
 * A kept-alive upstream connection can be closed by the upstream (its keep-alive timeout) just as
 * the next request goes out on it: the request then fails with a reset before any answer, and the
 * upstream never read it. Node 20's client does not honour the upstream's `Keep-Alive: timeout`
 * hint (a pooled socket's timeout stays 0), so its pool offers such sockets. Real fronts retry that
 * case on a new connection, as Node's docs advise (http `request.reusedSocket`); so does this one,
 * once, with the body it had sent (kept while it is under 1 MiB). Counted in `retried`, so that a
 * test can see it happen.
 */
function lostWithReusedSocket(upstream, error, answered) {
  return !answered && upstream.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
}

/**
 * @param {string[]} upstreams base URLs (http://127.0.0.1:port)
 * @param {number} [port] listen here (known in advance: it is the deployment's public URL)
 * @returns {Promise<{ url: string, port: number, served: number[], retried: number[], close: () => Promise<void> }>}
 */
export async function startRoundRobinProxy(upstreams, port = 0) {
  const targets = upstreams.map((u) => new URL(u));
  const agents = targets.map(() => new http.Agent({ keepAlive: true }));
  const served = targets.map(() => 0);
  const retried = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const i = next;
    next = (next + 1) % targets.length;
    served[i] += 1;
    const target = targets[i];
    const options = { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent: agents[i] };
    // The body as it went out, while it is small enough to send again.
    let body = [];
    let bodyBytes = 0;
    let bodyEnded = false;
    req.on("data", (chunk) => {
      if (body === undefined) return;
      bodyBytes += chunk.length;
      if (bodyBytes > REPLAYABLE_BODY_BYTES) body = undefined;
      else body.push(chunk);
    });
    req.on("end", () => (bodyEnded = true));

    const send = (agent, retry) => {
      let answered = false;
      const upstream = http.request({ ...options, agent }, (answer) => {
        answered = true;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", (error) => {
        if (retry && !res.headersSent && body !== undefined && lostWithReusedSocket(upstream, error, answered)) {
          retried[i] += 1;
          // A new connection, not another pooled one that may be as stale.
          const again = send(false, false);
          if (bodyEnded) again.end(Buffer.concat(body));
          else {
            for (const chunk of body) again.write(chunk);
            req.pipe(again);
          }
          return;
        }
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${error.code ?? ""} ${error.message}${upstream.reusedSocket ? " (on a reused connection)" : ""}`);
      });
      // The client going away (a dropped SSE stream) must reach the instance behind.
      res.on("close", () => {
        if (!res.writableFinished) upstream.destroy();
      });
      return upstream;
    };
    const first = send(agents[i], true);
    req.pipe(first);
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = server.address().port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    served,
    retried,
    async close() {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      for (const a of agents) a.destroy();
    },
  };
}
