/**
 * Changes to one session that race each other, in the stores every instance shares (real Redis)
 * and in process. An outside audit of two instances found the Redis store's read-modify-write
 * losing them: of six resources/subscribe sent at once (an SDK's Promise.all), two were kept,
 * while all six answered success; and a write racing a DELETE (the sliding expiry every request
 * past half the TTL makes, a subscribe) set the deleted session again, alive for another TTL,
 * where the transport says a deleted session is answered 404 (basic/transports §session management).
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { ioredisPort } from "../../lib/cluster/redis-port";
import { redisCluster } from "../../lib/cluster/redis-cluster";
import { MemorySessionStore, type SessionStore } from "../../lib/mcp/transport/session-store";
import { sessionRecord } from "../support/session-record";
import { StoredSessionControl } from "../../lib/mcp/transport/session/session-control";

const REDIS = `${(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379").replace(/\/\d*$/, "")}/13`;
const NS = `session-updates-${randomBytes(4).toString("hex")}:`;

const record = (id: string) => sessionRecord(id);

// Two clusters over two ports: two instances' views of one Redis.
const instances = [redisCluster(ioredisPort(REDIS, 2_000), NS, 50), redisCluster(ioredisPort(REDIS, 2_000), NS, 50)];

afterAll(async () => {
  const direct = new Redis(REDIS, { maxRetriesPerRequest: 1 });
  const keys = await direct.keys(`${NS}*`);
  if (keys.length > 0) await direct.del(...keys);
  direct.disconnect();
});

const stores: [string, () => SessionStore[]][] = [
  ["Redis, two instances", () => instances.map((i) => i.sessions)],
  ["in process", () => [new MemorySessionStore()].flatMap((s) => [s, s])],
];

describe.each(stores)("session changes that race (%s)", (_name, storesOf) => {
  it("six subscribes sent at once, through both instances, are all kept", async () => {
    const [a, b] = storesOf() as [SessionStore, SessionStore];
    const id = `s-${randomBytes(6).toString("hex")}`;
    await a.create(record(id));
    const uris = Array.from({ length: 6 }, (_, n) => `world://w${n}`);
    await Promise.all(uris.map((uri, n) => new StoredSessionControl(n % 2 ? b : a, id).subscribe(uri)));
    expect([...((await a.get(id))?.subscriptions ?? [])].sort()).toEqual(uris);
    // And unsubscribes the same way.
    await Promise.all(uris.slice(0, 3).map((uri, n) => new StoredSessionControl(n % 2 ? a : b, id).unsubscribe(uri)));
    expect([...((await b.get(id))?.subscriptions ?? [])].sort()).toEqual(uris.slice(3));
  });

  it("a session deleted while writes to it are in flight stays deleted", async () => {
    const [a, b] = storesOf() as [SessionStore, SessionStore];
    for (let round = 0; round < 20; round++) {
      const id = `d-${randomBytes(6).toString("hex")}`;
      await a.create(record(id));
      // The DELETE goes first, the writes right behind it: each read the session before it was gone.
      await Promise.all([a.delete(id), b.update(id, { expiresAt: Date.now() + 120_000 }), new StoredSessionControl(a, id).subscribe("world://x")]);
      expect(await a.get(id), `round ${round}`).toBeUndefined();
      expect(await b.get(id), `round ${round}`).toBeUndefined();
    }
  });
});
