import { Ratelimit, type Duration } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";
import { logUnexpected } from "../mcp/runtime/request-log";
import type { Budget } from "./budgets";
import type { LimiterSettings } from "./settings";
import { PlainRedisScripts } from "./plain-redis";
import type { Store } from "./store";
import { acquireSlot, type SlotRedis } from "./stream-slots";

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
  const limiterFor = (budget: Budget) => {
    let limiter = limiters.get(budget.name);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(budget.limit, `${budget.windowMs} ms` as Duration),
        prefix: `mcp:rl:${budget.name}`,
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
      const release = await acquireSlot(slotRedis, caller, max, settings.streamLeaseMs);
      return release ? { release: () => void release().catch((e: unknown) => logUnexpected("stream slot release", e)) } : undefined;
    },
  };
}

export function redisStoreFor(settings: LimiterSettings): Store {
  const backend = settings.backend;
  if (backend.kind === "memory") throw new Error("redisStoreFor: the limiter is configured in memory");
  if (backend.kind === "upstash") {
    const redis = new UpstashRedis({ url: backend.url, token: backend.token, retry: false, enableTelemetry: false });
    return redisStore(redis, { eval: (script, keys, args) => redis.eval(script, keys, args), zrem: (key, member) => redis.zrem(key, member) }, settings);
  }
  // Commands wait for a (re)connection at most timeoutMs, then fail: the failure policy decides.
  // Reconnection goes on in the background, so the limiter recovers when Redis is back.
  const client = new IORedis(backend.url, {
    maxRetriesPerRequest: 1,
    connectTimeout: settings.timeoutMs,
    commandTimeout: settings.timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  client.on("error", () => undefined); // reported per request by the failure policy, not per retry
  const scripts = new PlainRedisScripts(client);
  return redisStore(scripts as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"], {
    eval: (script, keys, args) => client.eval(script, keys.length, ...keys, ...args),
    zrem: (key, member) => client.zrem(key, member),
  }, settings);
}
