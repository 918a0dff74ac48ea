// The Redis rows' measured floor: the bare route reading its body, then one tools/call budget
// spent through the limiter this server's configuration builds (in process, or in Redis by
// REDIS_URL / Upstash), then a fixed answer. Only with MCP_BENCH_ROUTES=1 and MCP_RATE_LIMITS on
// (lib/bench/ceiling-routes.ts); otherwise 404.
import { loadEnv } from "@/lib/config/env";
import { ceilingLimited } from "@/lib/bench/ceiling-routes";
import { routeMethods } from "@/lib/http/route-methods";
import type { RequestLimiter } from "@/lib/mcp/policy/rate-limit";
import { createRequestLimiter } from "@/lib/ratelimit/create-limiter";
import { limiterSettingsOf } from "@/lib/ratelimit/settings";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

let limiter: RequestLimiter | undefined;

/**
 * Built once per process on first use, from the settings the MCP endpoint builds its own from
 * (lib/worlds/endpoint.ts): the same store, and with Redis the same shared connection. A limiter
 * of its own, so the floor's spending never touches the endpoint's callers.
 */
function configuredLimiter(): RequestLimiter | undefined {
  const env = loadEnv();
  if (!env.MCP_RATE_LIMITS) return undefined;
  limiter ??= createRequestLimiter(limiterSettingsOf(env));
  return limiter;
}

export const { GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH } = routeMethods({ POST: ceilingLimited(configuredLimiter) });
