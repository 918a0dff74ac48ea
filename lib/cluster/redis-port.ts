import type { Redis as UpstashRedis } from "@upstash/redis";
import type { Redis as IORedis, RedisOptions } from "ioredis";
import { sharedIoredis } from "./ioredis-connection";
import { livenessOptions, pingWhileSubscribed, reportReplacements } from "./connection-watchdog";

/**
 * The few Redis commands the cluster state needs, over either client a deployment has: ioredis
 * for any Redis (REDIS_URL), or @upstash/redis over REST (Vercel), whose subscribe streams
 * messages over HTTP. Values are strings both ways: neither side (de)serializes for us.
 */
export interface RedisPort {
  get(key: string): Promise<string | null>;
  /** SET with an expiry; with `onlyIfAbsent`, NX: false when the key already existed. */
  set(key: string, value: string, ttlMs: number, onlyIfAbsent?: boolean): Promise<boolean>;
  del(key: string): Promise<void>;
  /** RPUSH, keep the last `keep` entries, expire the list (and `alsoExpire`) after `ttlMs` — one round trip. */
  append(key: string, value: string, keep: number, ttlMs: number, alsoExpire?: string): Promise<void>;
  /**
   * SET `key` (expiring after `ttlMs`), then RPUSH `item` on `list`, keep its last `keep` entries
   * and expire it with the key — one transaction, one round trip (a new session and its caller's
   * list). Resolves to the entries this transaction trimmed off: each entry is trimmed by exactly
   * one transaction, however many run at once, so whoever gets it back is the one to act on it.
   */
  setAndPush(key: string, value: string, ttlMs: number, list: string, item: string, keep: number): Promise<string[]>;
  range(key: string): Promise<string[]>;
  /** PEXPIRE: a new lifetime for an existing key (nothing when it is gone). */
  expire(key: string, ttlMs: number): Promise<void>;
  /** DEL `key` only while it still holds `value` (a claim taken back by its owner alone); true when deleted. */
  delIfEquals(key: string, value: string): Promise<boolean>;
  /**
   * SET `key` to `value` (expiring after `ttlMs`) only while it still holds `expected`, in one step:
   * "set", or "changed" (someone wrote it since it was read), or "gone" (deleted or expired: a
   * write never brings it back).
   */
  setIfEquals(key: string, expected: string, value: string, ttlMs: number): Promise<CompareAndSet>;
  /** Messages published through one port reach subscribers in the order they were published. */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once subscribed: a message published after that is delivered. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
}

/** Compare and delete in one step: no other writer's value is ever deleted. */
const DEL_IF_EQUALS = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

export type CompareAndSet = "set" | "changed" | "gone";

/** Compare and set in one step: 1 set, -1 changed, 0 gone (GET of a missing key is false in Lua). */
const SET_IF_EQUALS = `local current = redis.call("GET", KEYS[1])
if not current then return 0 end
if current ~= ARGV[1] then return -1 end
redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
return 1`;

function compareAndSetOf(reply: unknown): CompareAndSet {
  const code = Number(reply);
  return code === 1 ? "set" : code === -1 ? "changed" : "gone";
}

/** PX and PEXPIRE take a positive whole number of milliseconds. */
function pxOf(ttlMs: number): number {
  return Math.max(1, Math.round(ttlMs));
}

/** The LRANGE reply inside a transaction: the entries about to be trimmed (none when it is not a list). */
function trimmedOf(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.filter((entry): entry is string => typeof entry === "string") : [];
}

/**
 * A client library is loaded when the first command runs, not when the module is: a process
 * configured without Redis never loads one, and the endpoint's module graph stays small (cold
 * start and memory in bench/PROFILING.md). Every port command is async already; this adds one await.
 */
function onFirstUse<T>(create: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= create());
}

export function ioredisPort(url: string, timeoutMs: number): RedisPort {
  const options: RedisOptions = { connectTimeout: timeoutMs, retryStrategy: (n: number) => Math.min(n * 200, 2_000) };
  const library = onFirstUse(() => import("ioredis").then((m) => m.Redis));
  // Shared with the rate limiter (one pipeline for a request's session read and budget check).
  let ready: IORedis | undefined;
  const connection = async () => (ready ??= await sharedIoredis(url, timeoutMs));
  let subscriber: Promise<IORedis> | undefined;
  const handlers = new Map<string, Set<(message: string) => void>>();
  return {
    // Issued at once once connected: a session read goes out ahead of what the request issues next.
    get: (key) => (ready ? ready.get(key) : connection().then((client) => client.get(key))),
    async set(key, value, ttlMs, onlyIfAbsent = false) {
      const client = await connection();
      const px = pxOf(ttlMs);
      const ok = onlyIfAbsent ? await client.set(key, value, "PX", px, "NX") : await client.set(key, value, "PX", px);
      return ok === "OK";
    },
    async del(key) {
      await (await connection()).del(key);
    },
    async append(key, value, keep, ttlMs, alsoExpire) {
      const px = pxOf(ttlMs);
      const tx = (await connection()).multi().rpush(key, value).ltrim(key, -keep, -1).pexpire(key, px);
      if (alsoExpire) tx.pexpire(alsoExpire, px);
      await tx.exec();
    },
    async setAndPush(key, value, ttlMs, list, item, keep) {
      const px = pxOf(ttlMs);
      const replies = await (await connection()).multi().set(key, value, "PX", px).rpush(list, item).lrange(list, 0, -keep - 1).ltrim(list, -keep, -1).pexpire(list, px).exec();
      return trimmedOf(replies?.[2]?.[1]);
    },
    range: async (key) => (await connection()).lrange(key, 0, -1),
    async expire(key, ttlMs) {
      await (await connection()).pexpire(key, pxOf(ttlMs));
    },
    delIfEquals: async (key, value) => Number(await (await connection()).eval(DEL_IF_EQUALS, 1, key, value)) === 1,
    setIfEquals: async (key, expected, value, ttlMs) => compareAndSetOf(await (await connection()).eval(SET_IF_EQUALS, 1, key, expected, value, String(pxOf(ttlMs)))),
    async publish(channel, message) {
      await (await connection()).publish(channel, message);
    },
    async subscribe(channel, onMessage) {
      subscriber ??= library().then((Redis) => {
        // A connection in subscriber mode serves nothing else; it re-subscribes after reconnecting.
        // Nothing would tell a dead one from a quiet one, so it is pinged (connection-watchdog.ts).
        const client = new Redis(url, { ...options, maxRetriesPerRequest: null, ...livenessOptions(timeoutMs) });
        client.on("error", () => undefined);
        reportReplacements(client, "subscriber");
        pingWhileSubscribed(client, timeoutMs);
        client.on("message", (ch: string, message: string) => {
          for (const handler of handlers.get(ch) ?? []) handler(message);
        });
        return client;
      });
      const client = await subscriber;
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(onMessage);
      if (set.size === 1) await client.subscribe(channel);
      return async () => {
        set.delete(onMessage);
        if (set.size === 0) {
          handlers.delete(channel);
          await client.unsubscribe(channel);
        }
      };
    },
  };
}

export function upstashPort(url: string, token: string): RedisPort {
  const connection = onFirstUse(async () => {
    const { Redis } = await import("@upstash/redis");
    return new Redis({ url, token, automaticDeserialization: false, enableTelemetry: false });
  });
  const publish = orderedPublisher(connection);
  return {
    get: async (key) => (await connection()).get<string>(key),
    async set(key, value, ttlMs, onlyIfAbsent = false) {
      const redis = await connection();
      const px = pxOf(ttlMs);
      const ok = onlyIfAbsent ? await redis.set(key, value, { px, nx: true }) : await redis.set(key, value, { px });
      return ok === "OK";
    },
    async del(key) {
      await (await connection()).del(key);
    },
    async append(key, value, keep, ttlMs, alsoExpire) {
      const px = pxOf(ttlMs);
      const tx = (await connection()).multi().rpush(key, value).ltrim(key, -keep, -1).pexpire(key, px);
      if (alsoExpire) tx.pexpire(alsoExpire, px);
      await tx.exec();
    },
    async setAndPush(key, value, ttlMs, list, item, keep) {
      const px = pxOf(ttlMs);
      const replies = await (await connection()).multi().set(key, value, { px }).rpush(list, item).lrange<string>(list, 0, -keep - 1).ltrim(list, -keep, -1).pexpire(list, px).exec();
      return trimmedOf(replies[2]);
    },
    range: async (key) => (await connection()).lrange<string>(key, 0, -1),
    async expire(key, ttlMs) {
      await (await connection()).pexpire(key, pxOf(ttlMs));
    },
    delIfEquals: async (key, value) => Number(await (await connection()).eval(DEL_IF_EQUALS, [key], [value])) === 1,
    setIfEquals: async (key, expected, value, ttlMs) => compareAndSetOf(await (await connection()).eval(SET_IF_EQUALS, [key], [expected, value, String(pxOf(ttlMs))])),
    publish,
    async subscribe(channel, onMessage) {
      const subscriber = (await connection()).subscribe<string>(channel);
      subscriber.on("message", (event) => onMessage(typeof event.message === "string" ? event.message : JSON.stringify(event.message)));
      // Upstash confirms the subscription with a "subscribe" event on the stream.
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        subscriber.on("subscribe", done);
        setTimeout(done, 2_000).unref?.();
      });
      return () => subscriber.unsubscribe();
    },
  };
}

interface Pending {
  channel: string;
  message: string;
  done: (error?: unknown) => void;
}

/**
 * PUBLISH over REST, in order. Each REST request is a connection of its own, so two publishes in
 * flight at once may reach Redis in either order (measured: tool-progress 70 before 60). One
 * pipeline request at a time carries everything published while the previous one was in flight:
 * order holds, and a burst costs one round trip, not one each.
 */
function orderedPublisher(connection: () => Promise<UpstashRedis>): RedisPort["publish"] {
  let queue: Pending[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const pipeline = (await connection()).pipeline();
        for (const { channel, message } of batch) pipeline.publish(channel, message);
        await pipeline.exec();
        for (const p of batch) p.done();
      } catch (error) {
        for (const p of batch) p.done(error);
      }
    }
    flushing = false;
  };
  return (channel, message) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ channel, message, done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error)))) });
      if (!flushing) void flush();
    });
}
