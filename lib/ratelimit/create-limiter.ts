import { limiterUnavailable, type RateLimitCall, type RateLimitDecision, type RequestLimiter } from "../mcp/policy/rate-limit";
import { logUnexpected } from "../log/operator-log";
import { budgetsOf, type Budget } from "./budgets";
import type { LimiterSettings } from "./settings";
import { memoryStore, storeOnFirstUse, type Store } from "./store";

/** Say it once per this long when the store is failing, not once per request. */
const FAILURE_LOG_INTERVAL_MS = 30_000;

function storeFor(settings: LimiterSettings): Store {
  if (settings.backend.kind === "memory") {
    process.stderr.write("Rate limits are counted in this process only (no UPSTASH_REDIS_REST_URL or REDIS_URL): each instance limits on its own.\n");
    return memoryStore();
  }
  return storeOnFirstUse(async () => (await import("./redis-store")).redisStoreFor(settings));
}

/**
 * The rate limiter a deployment runs, chosen by configuration:
 * - Upstash Redis over REST (UPSTASH_REDIS_REST_URL/TOKEN) — the Vercel choice;
 * - any Redis by REDIS_URL (ioredis), for self-hosting;
 * - in process (the default), which limits each instance on its own.
 * Both Redis kinds run @upstash/ratelimit's sliding window, so every instance spends from one
 * budget. When the store cannot answer, `failure` decides: "open" lets requests through (and
 * logs), "closed" refuses them with 503 until it answers again.
 */
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
    async giveBack(call) {
      try {
        await Promise.all(budgetsFor(call).map((budget) => store.refund(budget, call.caller)));
      } catch (thrown) {
        logUnexpected("rate limit give-back", thrown);
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
    async streamSlotFree(caller) {
      try {
        return await store.streamSlotFree(caller, settings.maxStreams);
      } catch (thrown) {
        // As openStream: "open" lets the stream through, "closed" answers 503.
        failed(thrown);
        return true;
      }
    },
  };
}
