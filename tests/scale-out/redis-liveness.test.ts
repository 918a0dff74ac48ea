/**
 * A Redis connection that goes silent without closing (a failover, a NAT or load balancer that
 * dropped the flow without a reset) is replaced, on the command connection and on the subscriber
 * (lib/cluster/connection-watchdog.ts). Without it, every command timed out until TCP gave up,
 * about 15 minutes, and a deaf subscriber left the cross-instance bus silent while requests still
 * answered 200 (outside audit, 2026-11-27). Real Redis, reached through a forwarder whose open
 * connections the test freezes while new ones still work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { sharedIoredis } from "../../lib/cluster/ioredis-connection";
import { ioredisPort } from "../../lib/cluster/redis-port";
import { redisCluster } from "../../lib/cluster/redis-cluster";
import { clusterMirror } from "../../lib/mcp/transport/cluster-streams";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/sdk-client";

const SHARED = new URL(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379");
/** How long a command waits: the watchdog pings this often and replaces a connection after three silent pings. */
const TIMEOUT_MS = 300;
const RUN = randomBytes(4).toString("hex");

let proxy: TcpProxy;
let direct: Redis;
let url = "";

beforeAll(async () => {
  proxy = await startTcpProxy({ host: SHARED.hostname, port: Number(SHARED.port || 6379) });
  url = `redis://127.0.0.1:${proxy.port}/14`;
  direct = new Redis(`redis://${SHARED.hostname}:${SHARED.port || 6379}/14`, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  await direct?.del(`liveness:${RUN}`).catch(() => undefined);
  direct?.disconnect();
  (await sharedIoredis(url, TIMEOUT_MS).catch(() => undefined))?.disconnect();
  await proxy?.close();
});

describe("a Redis connection gone silent", () => {
  it("the command connection is replaced: commands time out for a moment, then work again without a restart", async () => {
    const client = await sharedIoredis(url, TIMEOUT_MS);
    await client.set(`liveness:${RUN}`, "before");
    expect(await client.get(`liveness:${RUN}`)).toBe("before");

    proxy.freeze();
    await expect(client.get(`liveness:${RUN}`)).rejects.toThrow();
    await direct.set(`liveness:${RUN}`, "after");
    const back = await waitFor(() => client.get(`liveness:${RUN}`).catch(() => undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 });
    expect(back).toBe("after");
  });

  it("a command left unanswered when its connection is replaced is not sent again: it runs once", async () => {
    const client = await sharedIoredis(url, TIMEOUT_MS);
    expect(await waitFor(() => client.ping().catch(() => undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 })).toBe("PONG");
    const key = `liveness:${RUN}:count`;
    try {
      // Held past the connection's silence limit (2 s): the INCR's caller is told it failed, the
      // connection is replaced, then the held bytes reach Redis after all.
      proxy.pause();
      await expect(client.incr(key)).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 2_600));
      proxy.resume();
      expect(await waitFor(() => client.ping().catch(() => undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 })).toBe("PONG");
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Resent on the new connection as well, it would have counted twice (review, 2026-11-27).
      expect(Number(await direct.get(key))).toBeLessThanOrEqual(1);
    } finally {
      proxy.resume();
      await direct.del(key);
    }
  });

  it("the subscriber is replaced and subscribed again: messages published after it are delivered", async () => {
    const port = ioredisPort(url, TIMEOUT_MS);
    const channel = `liveness:${RUN}:bus`;
    const heard: string[] = [];
    const unsubscribe = await port.subscribe(channel, (message) => heard.push(message));
    try {
      await direct.publish(channel, "before");
      expect(await waitFor(async () => (heard.includes("before") ? true : undefined), { timeoutMs: 2_000, intervalMs: 20 })).toBe(true);

      proxy.freeze();
      // Published into the silence: lost, as on a real network. Then, within a few pings, the
      // subscriber is new and subscribed again, and what is published reaches it.
      let n = 0;
      const resumed = await waitFor(
        async () => {
          await direct.publish(channel, `after-${++n}`);
          return heard.some((m) => m.startsWith("after-")) ? true : undefined;
        },
        { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 },
      );
      expect(resumed).toBe(true);
    } finally {
      await unsubscribe().catch(() => undefined);
    }
  });

  it("a requestState spent while Redis stalled (the request refused 503) is unspent once Redis answers: the client's retry is not 'already used'", async () => {
    const { spentStates } = redisCluster(ioredisPort(url, TIMEOUT_MS), `liveness:${RUN}:`, 10);
    const nonce = `n-${RUN}`;
    const expiresAt = Date.now() + 60_000;
    try {
      // Connected first; then the SET leaves but is held: the command times out (a 503 for the
      // request), then lands.
      const client = await sharedIoredis(url, TIMEOUT_MS);
      expect(await waitFor(() => client.ping().catch(() => undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 })).toBe("PONG");
      proxy.pause();
      await expect(Promise.resolve(spentStates.spend(nonce, expiresAt))).rejects.toThrow(/unavailable/);
      await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
      proxy.resume();
      const spentAgain = await waitFor(async () => ((await Promise.resolve(spentStates.spend(nonce, expiresAt)).catch(() => undefined)) === true ? true : undefined), {
        timeoutMs: 30 * TIMEOUT_MS,
        intervalMs: 200,
      });
      expect(spentAgain).toBe(true);
      // Spent now, and only once: a replay is refused.
      expect(await spentStates.spend(nonce, expiresAt)).toBe(false);
    } finally {
      proxy.resume();
      await direct.del(`liveness:${RUN}:spent:${nonce}`);
    }
  });

  it("an event whose log write timed out is still announced: a follower on another instance does not skip it", async () => {
    const ns = `liveness:${RUN}:mirror:`;
    const { streamLog, bus } = redisCluster(ioredisPort(url, TIMEOUT_MS), ns, 10);
    if (!streamLog) throw new Error("the Redis cluster keeps a stream log");
    const mirror = clusterMirror(streamLog, bus, 60_000);
    // Another instance's ear: the bus channel itself (the bus never hands an instance its own messages).
    const ear = new Redis(`redis://${SHARED.hostname}:${SHARED.port || 6379}/14`);
    const announced: number[] = [];
    ear.on("message", (_channel: string, text: string) => {
      const { message } = JSON.parse(text) as { message: { kind: string; seq?: number } };
      if (message.kind === "stream_event" && message.seq !== undefined) announced.push(message.seq);
    });
    await ear.subscribe(`${ns}cluster`);
    try {
      const client = await sharedIoredis(url, TIMEOUT_MS);
      expect(await waitFor(() => client.ping().catch(() => undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 100 })).toBe("PONG");
      const stream = { id: `stream-${RUN}`, sessionId: undefined, requestIds: [] };
      await mirror.opened(stream);
      mirror.event(stream, 1, "one");
      expect(await waitFor(async () => (announced.includes(1) ? true : undefined), { timeoutMs: 2_000, intervalMs: 20 })).toBe(true);
      // A stall longer than a command may wait: the write of event 2 times out.
      proxy.pause();
      mirror.event(stream, 2, "two");
      await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
      proxy.resume();
      mirror.event(stream, 3, "three");
      expect(await waitFor(async () => (announced.includes(3) ? true : undefined), { timeoutMs: 30 * TIMEOUT_MS, intervalMs: 50 })).toBe(true);
      expect(announced).toEqual([1, 2, 3]);
    } finally {
      proxy.resume();
      ear.disconnect();
    }
  });
});
