import { Ratelimit, type Duration } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";
import { limiterUnavailable, type RateLimitCall, type RateLimitDecision, type RequestLimiter, type StreamSlot } from "../mcp/rate-limit";
import { logUnexpected } from "../mcp/request-log";
import { budgetsOf, type Budget, type BudgetConfig } from "./budgets";
import { MemoryStreamSlots, MemoryWindows } from "./memory-limiter";
import { PlainRedisScripts } from "./plain-redis";
import { acquireSlot, type SlotRedis } from "./stream-slots";

/**
 * The rate limiter a deployment runs, chosen by configuration:
 * - Upstash Redis over REST (UPSTASH_REDIS_REST_URL/TOKEN) — the Vercel choice;
 * - any Redis by REDIS_URL (ioredis), for self-hosting;
 * - in process (the default), which limits each instance on its own.
 * Both Redis kinds run @upstash/ratelimit's sliding window, so every instance spends from one
 * budget. When the store cannot answer, `failure` decides: "open" lets requests through (and
 * logs), "closed" refuses them with 503 until it answers again.
 */
export interface LimiterSettings {
  budgets: BudgetConfig;
  maxStreams: number;
  /** How long a stream slot is held at most (the streams' maximum lifetime, plus a margin). */
  streamLeaseMs: number;
  failure: "open" | "closed";
  /** A store slower than this counts as failed (@upstash/ratelimit's timeout). */
  timeoutMs: number;
  backend: { kind: "memory" } | { kind: "upstash"; url: string; token: string } | { kind: "redis"; url: string };
}

/** Say it once per this long when the store is failing, not once per request. */
const FAILURE_LOG_INTERVAL_MS = 30_000;

interface Store {
  take(budget: Budget, caller: string): RateLimitDecision | Promise<RateLimitDecision>;
  /** Undo one take (another budget refused the request). */
  refund(budget: Budget, caller: string): void | Promise<void>;
  openStream(caller: string, max: number): Promise<StreamSlot | undefined> | StreamSlot | undefined;
}

function memoryStore(): Store {
  const windows = new MemoryWindows();
  const slots = new MemoryStreamSlots();
  return {
    take(budget, caller) {
      const counted = windows.take(budget, caller);
      return { allowed: counted.allowed, limit: budget.limit, remaining: counted.remaining, resetAt: counted.resetAt };
    },
    refund: (budget, caller) => windows.refund(budget, caller),
    openStream(caller, max) {
      const release = slots.acquire(caller, max);
      return release ? { release } : undefined;
    },
  };
}

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

function storeFor(settings: LimiterSettings): Store {
  const backend = settings.backend;
  if (backend.kind === "memory") {
    process.stderr.write("Rate limits are counted in this process only (no UPSTASH_REDIS_REST_URL or REDIS_URL): each instance limits on its own.\n");
    return memoryStore();
  }
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

export function createRequestLimiter(settings: LimiterSettings): RequestLimiter {
  const store = storeFor(settings);
  const budgetsFor = budgetsOf(settings.budgets);
  let lastFailureLog = 0;

  /** The store failed: open lets the request pass; closed refuses it. Logged at most every 30 s. */
  function failed(thrown: unknown): undefined {
    const now = Date.now();
    if (now - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
      lastFailureLog = now;
      logUnexpected(`rate limiter (failing ${settings.failure})`, thrown);
    }
    if (settings.failure === "closed") throw limiterUnavailable();
    return undefined;
  }

  /** The tightest of several allowing decisions: what RateLimit-* headers report. */
  function tightest(decisions: RateLimitDecision[]): RateLimitDecision | undefined {
    return decisions.reduce<RateLimitDecision | undefined>((t, d) => (!t || d.remaining < t.remaining ? d : t), undefined);
  }

  /**
   * Several budgets (a tool's own, then tools/call): taken in order, stopping at the first that
   * refuses, whose takes are given back — a refused request spends nothing.
   */
  function spendAll(budgets: Budget[], caller: string): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> {
    const taken: RateLimitDecision[] = [];
    const next = (i: number): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> => {
      if (i === budgets.length) return tightest(taken);
      const budget = budgets[i] as Budget;
      const settle = (decision: RateLimitDecision): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> => {
        if (!decision.allowed) {
          const refunds = budgets.slice(0, i).map((b) => store.refund(b, caller));
          return refunds.some((r) => r instanceof Promise) ? Promise.all(refunds).then(() => decision) : decision;
        }
        taken.push(decision);
        return next(i + 1);
      };
      const decision = store.take(budget, caller);
      return decision instanceof Promise ? decision.then(settle) : settle(decision);
    };
    return next(0);
  }

  return {
    maxStreams: settings.maxStreams,
    check(call: RateLimitCall) {
      try {
        const decision = spendAll(budgetsFor(call), call.caller);
        return decision instanceof Promise ? decision.catch(failed) : decision;
      } catch (thrown) {
        return failed(thrown);
      }
    },
    async openStream(caller) {
      try {
        return await store.openStream(caller, settings.maxStreams);
      } catch (thrown) {
        failed(thrown);
        return { release: () => undefined };
      }
    },
  };
}
