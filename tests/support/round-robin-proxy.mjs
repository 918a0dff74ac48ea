// A reverse proxy that sends each request to the next upstream in turn — the harshest stand-in
// for a serverless platform, where consecutive requests of one client reach different instances.
// Streams (SSE) are piped through as they arrive. Loopback only.
import http from "node:http";

/**
 * @param {string[]} upstreams base URLs (http://127.0.0.1:port)
 * @param {number} [port] listen here (known in advance: it is the deployment's public URL)
 * @returns {Promise<{ url: string, port: number, served: number[], close: () => Promise<void> }>}
 */
export async function startRoundRobinProxy(upstreams, port = 0) {
  const targets = upstreams.map((u) => new URL(u));
  const agents = targets.map(() => new http.Agent({ keepAlive: true }));
  const served = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const i = next;
    next = (next + 1) % targets.length;
    served[i] += 1;
    const target = targets[i];
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent: agents[i] },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${error.message}`);
    });
    // The client going away (a dropped SSE stream) must reach the instance behind.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = server.address().port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    served,
    async close() {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      for (const a of agents) a.destroy();
    },
  };
}
