/**
 * The Redis rows' floor: the limiter's one Redis call timed alone, in this process, with no HTTP
 * and no server — lib/ratelimit/redis-store.ts's take() of a tools/call budget (the same
 * @upstash/ratelimit sliding window, the same ioredis connection settings and budgets as the
 * `limits-redis` server), in a closed loop. A request on `limits-redis` pays this once beyond
 * `limits-memory` (a 2025 session's session read rides in the same round trip), so
 * tools/call+limits:memory's p50 plus this row's is the least a Redis-limited request can take.
 */
import { createJiti } from "jiti";
import { closedLoop } from "../closed-loop.mjs";
import { CONFIG } from "../config.mjs";
import { LIMIT_BUDGETS, LIMIT_WINDOW_SECONDS } from "../servers/catalog.mjs";

export const REDIS_LIMITER = "redis:limiter";

/** A caller no server counts under, new each cell: a cell at c=32 takes ~80,000 a second, near a whole window's budget. */
let cells = 0;

let store;

async function limiterStore(keyPrefix) {
  if (!store) {
    const { redisStoreFor } = await createJiti(import.meta.url).import("../../lib/ratelimit/redis-store.ts");
    store = await redisStoreFor({
      backend: { kind: "redis", url: CONFIG.redisUrl, connectionTimeoutMs: 2_000 },
      timeoutMs: 1_000,
      streamLeaseMs: 60_000,
      keyPrefix,
    });
  }
  return store;
}

/** One cell of the limiter alone; its "server" CPU is this process's over the loop. */
export async function runLimiterCell(redis, concurrency, seconds) {
  const limiter = await limiterStore(redis.prefix);
  const budget = { name: "tools/call", limit: LIMIT_BUDGETS["tools/call"], windowMs: LIMIT_WINDOW_SECONDS * 1000 };
  const caller = `bench:limiter-alone:${process.pid}:${++cells}`;
  const call = async () => ((await limiter.take(budget, caller)).allowed ? undefined : "refused by its budget");
  const redis0 = redis ? await redis.cpuMs() : undefined;
  const cpu0 = process.cpuUsage();
  const cell = await closedLoop({ concurrency, seconds, call });
  const cpu = process.cpuUsage(cpu0);
  const redisMs = redis ? (await redis.cpuMs()) - redis0 : NaN;
  return { ...cell, serverMs: (cpu.user + cpu.system) / 1000, redisMs, clientMs: NaN };
}
