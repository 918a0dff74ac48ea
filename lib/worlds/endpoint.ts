import { loadEnv, type Env } from "../config/env";
import { deleteAuditRowsBefore, insertAuditRows } from "./data/audit";
import { createMcpEndpoint, endLongLivedStreams, type EndpointDefinition, type McpEndpoint, type PublishedSchemas } from "../mcp";
import { createAuditSink, type AuditSink } from "./audit/tool-call-audit";
import { auditRetention } from "./audit/audit-retention";
import { WORLDCRAFTER_NAMESPACE, worldcrafterServer } from "./server-definition";
import { worldcrafterResourceServer } from "./authorization";
import { worldcrafterLimiter } from "./request-limiter";
import { clusterOf } from "../cluster/create-cluster";
import { tasksOf } from "../tasks/create-tasks";
import type { Platform } from "../http/platform";
import generatedToolSchemas from "./tools/generated-schemas.json";

export type { Platform } from "../http/platform";

let endpoint: McpEndpoint | undefined;
let audit: AuditSink | undefined;

/** The tools' JSON Schemas as scripts/build-tool-schemas.mjs wrote them (every `next build` runs it first). */
const builtToolSchemas: PublishedSchemas = generatedToolSchemas;

/**
 * A production build publishes the schemas made when it was built: its cold start converts none
 * (bench/PROFILING.md, round 28). `next dev` and the tests convert them live, so a schema edited
 * while the dev server runs is published as edited.
 */
export function worldcrafterDefinition(env: Pick<Env, "NODE_ENV">): EndpointDefinition {
  return env.NODE_ENV === "production" ? { ...worldcrafterServer, toolSchemas: builtToolSchemas } : worldcrafterServer;
}

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
  endpoint = createMcpEndpoint(worldcrafterDefinition(env), env, {
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
