/**
 * The test harness's round-robin proxy (tests/support/round-robin-proxy.mjs), which stands in for
 * the platform in every two-instance suite. An upstream that closes a kept-alive connection as the
 * next request goes out on it (its keep-alive timeout, met under load) must not show up as a 502
 * in a soak: a real front sends that request again on a new connection, once. Anything else stays
 * an error the tests see.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startRoundRobinProxy, type RoundRobinProxy } from "../support/round-robin-proxy.mjs";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * An upstream that echoes the body it read, or resets the connection instead of answering when
 * `reset` says so, given the request's body and its place on its connection (1-based).
 */
async function upstream(reset: (body: string, nth: number) => boolean): Promise<{ url: string; requests: string[]; connections: number }> {
  const requests: string[] = [];
  const perSocket = new WeakMap<Socket, number>();
  const state = { url: "", requests, connections: 0 };
  const server = http.createServer((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      if (reset(body, nth)) {
        req.socket.resetAndDestroy();
        return;
      }
      requests.push(body);
      res.end(`echo ${body}`);
    });
  });
  server.on("connection", () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}

async function proxyTo(urls: string[]): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy(urls);
  closers.push(() => proxy.close());
  return proxy;
}

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, { method: "POST", body });
  return { status: r.status, text: await r.text() };
}

describe("round-robin proxy", () => {
  it("sends a request lost on a reused connection again, once, on a new one, with its body", async () => {
    const up = await upstream((_, nth) => nth === 2);
    const proxy = await proxyTo([up.url]);
    expect(await post(proxy.url, "first")).toEqual({ status: 200, text: "echo first" });
    // Goes out on the kept-alive connection, which the upstream resets: sent again.
    expect(await post(proxy.url, "second")).toEqual({ status: 200, text: "echo second" });
    expect(up.requests).toEqual(["first", "second"]);
    expect(proxy.retried).toEqual([1]);
    expect(up.connections).toBe(2);
  });

  it("does not send again a request reset on a new connection: the client sees the 502", async () => {
    const up = await upstream((_, nth) => nth === 1);
    const proxy = await proxyTo([up.url]);
    const answer = await post(proxy.url, "only");
    expect(answer.status).toBe(502);
    expect(answer.text).toMatch(/^proxy: ECONNRESET/);
    expect(up.requests).toEqual([]);
    expect(proxy.retried).toEqual([0]);
  });

  it("tries again only once: a request reset on the new connection too reaches the client as a 502", async () => {
    const up = await upstream((body) => body === "doomed");
    const proxy = await proxyTo([up.url]);
    expect((await post(proxy.url, "warm")).status).toBe(200);
    const answer = await post(proxy.url, "doomed");
    expect(answer.status).toBe(502);
    expect(answer.text).toMatch(/^proxy: ECONNRESET/);
    expect(proxy.retried).toEqual([1]);
    expect(up.connections).toBe(2);
  });
});
