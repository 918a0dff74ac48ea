import type { Env } from "../config/env";
import { parseToolBudgets, type BudgetConfig } from "./budgets";

/** What the limiter is built from (createRequestLimiter) and the Redis store reads. */
export interface LimiterSettings {
  budgets: BudgetConfig;
  maxStreams: number;
  /** How long a stream slot is held at most (the streams' maximum lifetime, plus a margin). */
  streamLeaseMs: number;
  failure: "open" | "closed";
  /** A store slower than this counts as failed (@upstash/ratelimit's timeout). */
  timeoutMs: number;
  /**
   * What the store's keys start with: MCP_CLUSTER_PREFIX, as the cluster state's, so deployments
   * that share one Redis under their own prefixes spend their own budgets and stream slots.
   */
  keyPrefix: string;
  /** `connectionTimeoutMs`: the connection's, which the limiter shares with the cluster state (MCP_CLUSTER_TIMEOUT_MS). */
  backend: { kind: "memory" } | { kind: "upstash"; url: string; token: string } | { kind: "redis"; url: string; connectionTimeoutMs: number };
}

/**
 * The tasks budget by default: every task a caller may run at once polled at the interval the
 * server asks for (MCP_TASK_POLL_INTERVAL_MS) for the whole window, twice over (a get and an
 * update or a cancel, clocks that drift). 1,200 a minute with the defaults.
 */
function pollingBudget(env: Env): number {
  const polls = Math.ceil((env.MCP_RATE_LIMIT_WINDOW_SECONDS * 1000) / env.MCP_TASK_POLL_INTERVAL_MS);
  return Math.min(1_000_000, 2 * env.MCP_TASKS_MAX_RUNNING_PER_CALLER * polls);
}

/** The limiter a deployment's configuration asks for (see .env.example, "Rate limits"). */
export function limiterSettingsOf(env: Env): LimiterSettings {
  return {
    budgets: {
      windowMs: env.MCP_RATE_LIMIT_WINDOW_SECONDS * 1000,
      toolsList: env.MCP_RATE_LIMIT_TOOLS_LIST,
      toolsCall: env.MCP_RATE_LIMIT_TOOLS_CALL,
      initialize: env.MCP_RATE_LIMIT_INITIALIZE,
      tasks: env.MCP_RATE_LIMIT_TASKS ?? pollingBudget(env),
      other: env.MCP_RATE_LIMIT_OTHER,
      perTool: parseToolBudgets(env.MCP_RATE_LIMIT_TOOLS),
    },
    maxStreams: env.MCP_MAX_STREAMS_PER_CALLER,
    // A slot outlives no stream: streams end at their maximum lifetime; the margin covers clocks.
    streamLeaseMs: Math.max(env.MCP_STREAM_MAX_LIFETIME_MS, env.MCP_LISTEN_MAX_LIFETIME_MS) + 30_000,
    failure: env.MCP_RATE_LIMIT_FAILURE,
    timeoutMs: env.MCP_RATE_LIMIT_TIMEOUT_MS,
    keyPrefix: env.MCP_CLUSTER_PREFIX,
    backend:
      env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
        ? { kind: "upstash", url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
        : env.REDIS_URL
          ? { kind: "redis", url: env.REDIS_URL, connectionTimeoutMs: env.MCP_CLUSTER_TIMEOUT_MS }
          : { kind: "memory" },
  };
}
