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

class CheckTimeout extends Error {}

/**
 * What a failed check says to anyone who asks (the route is public): the driver's error code at
 * most, never its message, which can carry server paths or host names. The whole error goes to the
 * server's log.
 */
function failureText(name: string, thrown: unknown): string {
  if (thrown instanceof CheckTimeout) return `no answer within ${CHECK_TIMEOUT_MS} ms`;
  console.error(`health: the ${name} check failed`, thrown);
  const code = typeof thrown === "object" && thrown !== null && "code" in thrown ? (thrown as { code: unknown }).code : undefined;
  return typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code) ? `did not answer (${code})` : "did not answer";
}

async function timed(name: string, check: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new CheckTimeout()), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: "ok", latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (thrown) {
    return { status: "failed", error: failureText(name, thrown) };
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
      : timed("database", () => sql("SELECT 1", [])),
    redis ? timed("redis", () => redis.get(`${env.MCP_CLUSTER_PREFIX}:health`)) : Promise.resolve<CheckResult>({ status: "not_configured" }),
  ]);
  const ready = database.status === "ok" && redisCheck.status !== "failed";
  return { status: ready ? "ok" : "not_ready", live: true, ready, checks: { database, redis: redisCheck } };
}
