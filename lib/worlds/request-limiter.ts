import type { Env } from "../config/env";
import type { RequestLimiter } from "../mcp/policy/rate-limit";
import { createRequestLimiter } from "../ratelimit/create-limiter";
import { limiterSettingsOf } from "../ratelimit/settings";

let limiter: RequestLimiter | null | undefined;

/**
 * The deployment's rate limiter (MCP_RATE_LIMITS), one per process: /api/mcp and the export
 * download links spend from the same budgets, through the same store connection.
 */
export function worldcrafterLimiter(env: Env): RequestLimiter | undefined {
  if (limiter === undefined) limiter = env.MCP_RATE_LIMITS ? createRequestLimiter(limiterSettingsOf(env)) : null;
  return limiter ?? undefined;
}
