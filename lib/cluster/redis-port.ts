import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";

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
  range(key: string): Promise<string[]>;
  /** PEXPIRE: a new lifetime for an existing key (nothing when it is gone). */
  expire(key: string, ttlMs: number): Promise<void>;
  /** Messages published through one port reach subscribers in the order they were published. */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once subscribed: a message published after that is delivered. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
}

export function ioredisPort(url: string, timeoutMs: number): RedisPort {
  const options = { maxRetriesPerRequest: 1, connectTimeout: timeoutMs, commandTimeout: timeoutMs, retryStrategy: (n: number) => Math.min(n * 200, 2_000) };
  const client = new IORedis(url, options);
  client.on("error", () => undefined); // a failing command reports it; reconnection is automatic
  let subscriber: IORedis | undefined;
  const handlers = new Map<string, Set<(message: string) => void>>();
  return {
    get: (key) => client.get(key),
    async set(key, value, ttlMs, onlyIfAbsent = false) {
      const px = Math.max(1, Math.round(ttlMs));
      const ok = onlyIfAbsent ? await client.set(key, value, "PX", px, "NX") : await client.set(key, value, "PX", px);
      return ok === "OK";
    },
    async del(key) {
      await client.del(key);
    },
    async append(key, value, keep, ttlMs, alsoExpire) {
      const px = Math.max(1, Math.round(ttlMs));
      const tx = client.multi().rpush(key, value).ltrim(key, -keep, -1).pexpire(key, px);
      if (alsoExpire) tx.pexpire(alsoExpire, px);
      await tx.exec();
    },
    range: (key) => client.lrange(key, 0, -1),
    async expire(key, ttlMs) {
      await client.pexpire(key, Math.max(1, Math.round(ttlMs)));
    },
    async publish(channel, message) {
      await client.publish(channel, message);
    },
    async subscribe(channel, onMessage) {
      if (!subscriber) {
        // A connection in subscriber mode serves nothing else; it re-subscribes after reconnecting.
        subscriber = new IORedis(url, { ...options, maxRetriesPerRequest: null, commandTimeout: undefined });
        subscriber.on("error", () => undefined);
        subscriber.on("message", (ch: string, message: string) => {
          for (const handler of handlers.get(ch) ?? []) handler(message);
        });
      }
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(onMessage);
      if (set.size === 1) await subscriber.subscribe(channel);
      return async () => {
        set.delete(onMessage);
        if (set.size === 0) {
          handlers.delete(channel);
          await subscriber?.unsubscribe(channel);
        }
      };
    },
  };
}

export function upstashPort(url: string, token: string): RedisPort {
  const redis = new UpstashRedis({ url, token, automaticDeserialization: false, enableTelemetry: false });
  const publish = orderedPublisher(redis);
  return {
    get: (key) => redis.get<string>(key),
    async set(key, value, ttlMs, onlyIfAbsent = false) {
      const px = Math.max(1, Math.round(ttlMs));
      const ok = onlyIfAbsent ? await redis.set(key, value, { px, nx: true }) : await redis.set(key, value, { px });
      return ok === "OK";
    },
    async del(key) {
      await redis.del(key);
    },
    async append(key, value, keep, ttlMs, alsoExpire) {
      const px = Math.max(1, Math.round(ttlMs));
      const tx = redis.multi().rpush(key, value).ltrim(key, -keep, -1).pexpire(key, px);
      if (alsoExpire) tx.pexpire(alsoExpire, px);
      await tx.exec();
    },
    range: (key) => redis.lrange<string>(key, 0, -1),
    async expire(key, ttlMs) {
      await redis.pexpire(key, Math.max(1, Math.round(ttlMs)));
    },
    publish,
    async subscribe(channel, onMessage) {
      const subscriber = redis.subscribe<string>(channel);
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
function orderedPublisher(redis: UpstashRedis): RedisPort["publish"] {
  let queue: Pending[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const pipeline = redis.pipeline();
      for (const { channel, message } of batch) pipeline.publish(channel, message);
      try {
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
