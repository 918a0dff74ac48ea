import type { Env } from "../config/env";
import { sql, transaction } from "../db/prisma";
import type { TaskAdapters } from "../mcp";
import { sqlTaskStore } from "./sql-task-store";

/**
 * Durable tasks for an endpoint, from configuration: the database store (PostgreSQL or PGlite,
 * whichever lib/db uses) and the host's after-response hook; undefined when MCP_TASKS is off.
 */
export function tasksOf(env: Env, runAfterResponse?: (work: () => Promise<void>) => void): TaskAdapters | undefined {
  if (!env.MCP_TASKS) return undefined;
  return {
    store: sqlTaskStore(sql, transaction),
    settings: {
      ttlMs: env.MCP_TASK_TTL_MS,
      pollIntervalMs: env.MCP_TASK_POLL_INTERVAL_MS,
      leaseMs: env.MCP_TASK_LEASE_MS,
      maxWorkingPerOwner: env.MCP_TASKS_MAX_RUNNING_PER_CALLER,
      maxStoredPerOwner: env.MCP_TASKS_MAX_STORED_PER_CALLER,
      maxResultBytes: env.MCP_TASK_MAX_RESULT_BYTES,
      timeLimitMs: env.MCP_TOOL_TIMEOUT_MS,
    },
    ...(runAfterResponse ? { runAfterResponse } : {}),
  };
}
