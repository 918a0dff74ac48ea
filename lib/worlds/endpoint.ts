import { loadEnv } from "../config/env";
import { deleteAuditRowsBefore, insertAuditRows } from "./data/audit";
import { createMcpEndpoint, endLongLivedStreams, type McpEndpoint } from "../mcp";
import { createAuditSink, type AuditSink } from "./audit/tool-call-audit";
import { auditRetention } from "./audit/audit-retention";
import { WORLDCRAFTER_NAMESPACE, worldcrafterServer } from "./server-definition";
import { worldcrafterResourceServer } from "./authorization";
import { worldcrafterLimiter } from "./request-limiter";
import { clusterOf } from "../cluster/create-cluster";
import { tasksOf } from "../tasks/create-tasks";
import type { Platform } from "../http/platform";

export type { Platform } from "../http/platform";

let endpoint: McpEndpoint | undefined;
let audit: AuditSink | undefined;

/** The product endpoint, built once per process on first use. */
export function worldcrafterEndpoint(platform: Platform = {}): McpEndpoint {
  if (endpoint) return endpoint;
  const env = loadEnv();
  audit = createAuditSink({
    write: auditRetention({ retentionDays: env.MCP_AUDIT_RETENTION_DAYS, insert: insertAuditRows, deleteBefore: deleteAuditRowsBefore }).write,
    ...(platform.afterResponse ? { defer: platform.afterResponse } : {}),
  });
  const tasks = tasksOf(env, platform.afterResponse);
  const limiter = worldcrafterLimiter(env);
  endpoint = createMcpEndpoint(worldcrafterServer, env, {
    ...(tasks ? { tasks } : {}),
    onToolCall: audit.observe,
    access: worldcrafterResourceServer().access,
    ...(limiter ? { limiter } : {}),
    cluster: clusterOf(env, WORLDCRAFTER_NAMESPACE),
  });
  platform.onShutdown?.(endLongLivedStreams);
  return endpoint;
}

/** Writes pending audit rows now (tests and scripts). */
export function flushToolCallAudit(): Promise<void> {
  return audit?.flush() ?? Promise.resolve();
}
