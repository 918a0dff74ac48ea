import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";

/**
 * A stand-in authorization server's key endpoint on 127.0.0.1 that the test controls: it serves
 * whatever public keys it is given at /jwks.json, can be switched to fail, and counts every request
 * by path with its arrival time — so a test can prove when the resource server refetched keys, and that it never fetched
 * a URL an attacker named in a token header (jku, x5u).
 */
export interface JwksServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The JWKS URL the resource server is configured with. */
  jwksUrl: string;
  /** Replaces the published key set (takes effect on the next fetch). */
  setKeys(keys: readonly JWK[]): void;
  /** Answers /jwks.json with this status and no key set, or serves keys again with `undefined`. */
  setFailure(status: number | undefined): void;
  /** How many requests `path` has received so far. */
  requests(path: string): number;
  /** When (Date.now()) each request to `path` arrived, oldest first. */
  requestTimes(path: string): readonly number[];
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  let keys: readonly JWK[] = [];
  let failure: number | undefined;
  const times = new Map<string, number[]>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const seen = times.get(path) ?? [];
    seen.push(Date.now());
    times.set(path, seen);
    if (path === "/jwks.json" && req.method === "GET") {
      if (failure !== undefined) {
        res.writeHead(failure, { "content-type": "text/plain" }).end("key service unavailable");
        return;
      }
      res.writeHead(200, { "content-type": "application/jwk-set+json", "cache-control": "no-store" }).end(JSON.stringify({ keys }));
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    jwksUrl: `${origin}/jwks.json`,
    setKeys(next) {
      keys = [...next];
    },
    setFailure(status) {
      failure = status;
    },
    requests: (path) => times.get(path)?.length ?? 0,
    requestTimes: (path) => [...(times.get(path) ?? [])],
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets from the server under test would otherwise hold close() open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
