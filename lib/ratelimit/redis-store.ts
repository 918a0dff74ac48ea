import { Ratelimit, type Duration } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import { sharedIoredis } from "../cluster/ioredis-connection";
import { logUnexpected } from "../log/operator-log";
import type { Budget } from "./budgets";
import type { LimiterSettings } from "./settings";
import { PlainRedisScripts } from "./plain-redis";
import type { Store } from "./store";
import { acquireSlot, slotFree, type SlotRedis } from "./stream-slots";

/**
 * Budgets counted in Redis with @upstash/ratelimit's sliding window, so every instance spends
 * from one budget: over Upstash's REST API, or any Redis by REDIS_URL (ioredis). create-limiter
 * imports this module on first use only.
 */

class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailable";
}

function redisStore(redis: ConstructorParameters<typeof Ratelimit>[0]["redis"], slotRedis: SlotRedis, settings: LimiterSettings): Store {
  const limiters = new Map<string, Ratelimit>();
  const slotsKey = (caller: string) => `${settings.keyPrefix}:streams:${caller}`;
  const limiterFor = (budget: Budget) => {
    let limiter = limiters.get(budget.name);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(budget.limit, `${budget.windowMs} ms` as Duration),
        prefix: `${settings.keyPrefix}:rl:${budget.name}`,
        timeout: settings.timeoutMs,
        analytics: false,
      });
      limiters.set(budget.name, limiter);
    }
    return limiter;
  };
  return {
    async take(budget, caller) {
      const result = await limiterFor(budget).limit(caller);
      // Ratelimit answers "success" when its store is too slow: that is a failure to decide.
      if (result.reason === "timeout") throw new StoreUnavailable(`the rate-limit store did not answer within ${settings.timeoutMs} ms`);
      return { allowed: result.success, limit: budget.limit, remaining: result.remaining, resetAt: result.reset };
    },
    async refund(budget, caller) {
      // A negative rate gives tokens back (the sliding window script skips the limit check then).
      await limiterFor(budget).limit(caller, { rate: -1 });
    },
    async openStream(caller, max) {
      const release = await acquireSlot(slotRedis, slotsKey(caller), max, settings.streamLeaseMs);
      return release ? { release: () => void release().catch((e: unknown) => logUnexpected("stream slot release", e)) } : undefined;
    },
    streamSlotFree: (caller, max) => slotFree(slotRedis, slotsKey(caller), max),
  };
}

export async function redisStoreFor(settings: LimiterSettings): Promise<Store> {
  const backend = settings.backend;
  if (backend.kind === "memory") throw new Error("redisStoreFor: the limiter is configured in memory");
  if (backend.kind === "upstash") {
    const redis = new UpstashRedis({ url: backend.url, token: backend.token, retry: false, enableTelemetry: false });
    return redisStore(redis, { eval: (script, keys, args) => redis.eval(script, keys, args), zrem: (key, member) => redis.zrem(key, member) }, settings);
  }
  // The cluster state's connection (one per URL, auto-pipelined): a session request's budget
  // check leaves in one write with its session read. Ratelimit's own timeout bounds the wait;
  // the failure policy decides, and the limiter recovers when Redis is back.
  const client = await sharedIoredis(backend.url, backend.connectionTimeoutMs);
  const scripts = new PlainRedisScripts(client);
  return redisStore(scripts as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"], {
    eval: (script, keys, args) => client.eval(script, keys.length, ...keys, ...args),
    zrem: (key, member) => client.zrem(key, member),
  }, settings);
}
