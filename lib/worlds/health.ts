import type { Env } from "../config/env";
import { ioredisPort, upstashPort, type RedisPort } from "../cluster/redis-port";
import { sql } from "../db/prisma";

/**
 * GET /api/health: liveness (the process answers) and readiness (the database, and Redis when one
 * is configured, answer within a bound). A load balancer or uptime check reads the status code:
 * 200 ready, 503 not ready, each with what failed in words. Nothing secret is reported.
 */

const CHECK_TIMEOUT_MS = 2_000;

export type CheckResult = { status: "ok"; latencyMs: number } | { status: "failed"; error: string } | { status: "not_configured" };

export interface HealthReport {
  status: "ok" | "not_ready";
  live: true;
  ready: boolean;
  checks: { database: CheckResult; redis: CheckResult };
}

async function timed(check: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: "ok", latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (thrown) {
    // The error's first line only: a driver's message can be long, never a credential (URLs are not echoed).
    const message = thrown instanceof Error ? thrown.message.split("\n")[0]!.slice(0, 200) : "failed";
    return { status: "failed", error: message };
  } finally {
    clearTimeout(timer);
  }
}

let port: RedisPort | undefined;

function redisOf(env: Env): RedisPort | undefined {
  if (port) return port;
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) port = upstashPort(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN);
  else if (env.REDIS_URL) port = ioredisPort(env.REDIS_URL, CHECK_TIMEOUT_MS);
  return port;
}

export async function healthReport(env: Env): Promise<HealthReport> {
  const redis = redisOf(env);
  const [database, redisCheck] = await Promise.all([
    env.VERCEL && !env.DATABASE_URL
      ? Promise.resolve<CheckResult>({ status: "failed", error: "DATABASE_URL is not set (the embedded database cannot be written on Vercel)" })
      : timed(() => sql("SELECT 1", [])),
    redis ? timed(() => redis.get(`${env.MCP_CLUSTER_PREFIX}:health`)) : Promise.resolve<CheckResult>({ status: "not_configured" }),
  ]);
  const ready = database.status === "ok" && redisCheck.status !== "failed";
  return { status: ready ? "ok" : "not_ready", live: true, ready, checks: { database, redis: redisCheck } };
}
