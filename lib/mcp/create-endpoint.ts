import { randomBytes } from "node:crypto";
import type { Env } from "../config/env";
import { ClusterHub } from "./cluster/notification-hub";
import { SOLO_BUS, type Cluster } from "./cluster/cluster";
import { ToolSwitchboard } from "./cluster/tool-switchboard";
import { MemorySpentStateStore, RequestStateCodec } from "./transport/stateless/request-state";
import type { AccessControl } from "../auth/access-control";
import type { LocalePolicy } from "./policy/locale";
import type { ToolCallObserver } from "./runtime/tool-call-observer";
import type { RequestLimiter } from "./policy/rate-limit";
import { Registry, type PublishedSchemas, type RegistryContents } from "./registry";
import type { ServerExtensions, ServerIdentity } from "./protocol/server-info";
import { silentRequestLogger, stdoutRequestLogger } from "./runtime/request-log";
import { MemorySessionStore } from "./transport/session-store";
import { clientAddressPolicyOf } from "../http/client-address";
import { createStreamableHttpHandler, type StreamableHttpHandler } from "./transport/streamable-http";
import { TaskRuntime, type TaskAdapters } from "./tasks/runtime";

let warnedAboutSecret = false;

/**
 * The requestState key: configured, or made up for this process. A made-up key is fine for one
 * instance; on several, a state signed by one is refused by the others, so say so once.
 */
function stateSecret(env: Env): Buffer {
  if (env.MCP_REQUEST_STATE_SECRET) return Buffer.from(env.MCP_REQUEST_STATE_SECRET, "utf8");
  if (!warnedAboutSecret) {
    warnedAboutSecret = true;
    process.stderr.write("MCP_REQUEST_STATE_SECRET is not set: using a per-process key (fine for one instance; set it when running several)\n");
  }
  return randomBytes(32);
}

export interface EndpointDefinition {
  info: ServerIdentity;
  instructions?: string;
  contents: RegistryContents;
  /** Locales the app writes human text in; handlers read the negotiated one as `ctx.locale`. */
  locales?: LocalePolicy;
  /** Extensions the server supports, by identifier, with their settings (`capabilities.extensions`). */
  extensions?: ServerExtensions;
  /**
   * The tools' JSON Schemas made when the deployment was built (`publishedSchemasOf`), so none is
   * converted at start-up; absent, the registry converts each tool's zod schemas itself.
   */
  toolSchemas?: PublishedSchemas;
}

export interface EndpointAdapters {
  /** Sessions, spent states, stream logs and the bus shared by instances (lib/cluster); default: this process only. */
  cluster?: Cluster;
  /** Who may call what (lib/auth: bearer JWTs); absent, everything is open to anyone. */
  access?: AccessControl;
  /** Told about every finished tools/call (audit log, metrics). */
  onToolCall?: ToolCallObserver;
  /** Rate limits per caller (lib/ratelimit); absent, nothing is limited. */
  limiter?: RequestLimiter;
  /** Durable tasks (lib/tasks over the database); absent, the tasks extension is not offered. */
  tasks?: TaskAdapters;
}

export interface McpEndpoint extends StreamableHttpHandler {
  registry: Registry;
}

/**
 * Build an MCP endpoint from a server definition and validated configuration: the registry is
 * compiled once here (JSON Schema, list pages), adapters are chosen from config.
 */
export function createMcpEndpoint(
  definition: EndpointDefinition,
  env: Env,
  adapters: EndpointAdapters = {},
): McpEndpoint {
  const registry = new Registry(definition.contents, env.MCP_PAGE_SIZE, {
    tokenRequired: adapters.access?.mode === "required",
    ...(definition.toolSchemas ? { schemas: definition.toolSchemas } : {}),
  });
  const cluster = adapters.cluster ?? { sessions: new MemorySessionStore(env.MCP_MAX_SESSIONS, env.MCP_MAX_SESSIONS_PER_CALLER), spentStates: new MemorySpentStateStore(), bus: SOLO_BUS };
  const hub = new ClusterHub(cluster.bus);
  // Each instance announces its own registry's changes (they change on every instance alike).
  registry.onChange((list) => hub.publishLocal({ kind: "list_changed", list }));
  new ToolSwitchboard(registry, definition.contents.tools ?? [], cluster, env.MCP_DISABLED_TOOLS);
  const handler = createStreamableHttpHandler({
    hub,
    requestStates: new RequestStateCodec(stateSecret(env), env.MCP_REQUEST_STATE_TTL_SECONDS * 1000, cluster.spentStates),
    listCache: { scope: "public", ttlMs: env.MCP_LIST_TTL_MS },
    listenMaxLifetimeMs: env.MCP_LISTEN_MAX_LIFETIME_MS,
    env: {
      registry,
      info: definition.info,
      instructions: definition.instructions,
      ...(definition.locales ? { locales: definition.locales } : {}),
      ...(definition.extensions ? { extensions: definition.extensions } : {}),
      ...(adapters.onToolCall ? { onToolCall: adapters.onToolCall } : {}),
      ...(adapters.access ? { access: adapters.access } : {}),
      maxToolBatch: env.MCP_MAX_TOOL_BATCH,
      toolTimeoutMs: env.MCP_TOOL_TIMEOUT_MS,
      publishResourceUpdate: (uri, owner) => hub.publish({ kind: "resource_updated", uri, owner }),
      ...(adapters.tasks ? { tasks: new TaskRuntime(adapters.tasks, cluster.bus, hub) } : {}),
    },
    sessionMode: env.MCP_SESSION_MODE,
    cluster,
    sessionTtlMs: env.MCP_SESSION_TTL_SECONDS * 1000,
    origin: { allowedOrigins: env.MCP_ALLOWED_ORIGINS, allowLoopback: env.MCP_ALLOW_LOOPBACK_ORIGINS },
    maxBodyBytes: env.MCP_MAX_BODY_BYTES,
    bodyTimeoutMs: env.MCP_BODY_TIMEOUT_MS,
    clientAddresses: clientAddressPolicyOf(env),
    maxBatch: env.MCP_MAX_BATCH,
    maxJsonDepth: env.MCP_MAX_JSON_DEPTH,
    keepAliveMs: env.MCP_SSE_KEEPALIVE_MS,
    retryMs: env.MCP_SSE_RETRY_MS,
    resumeGraceMs: env.MCP_RESUME_GRACE_MS,
    streamRetentionMs: env.MCP_STREAM_RETENTION_MS,
    clientRequestTimeoutMs: env.MCP_CLIENT_REQUEST_TIMEOUT_MS,
    log: env.MCP_LOG_REQUESTS ? stdoutRequestLogger : silentRequestLogger,
    ...(adapters.access ? { access: adapters.access } : {}),
    ...(adapters.limiter ? { limiter: adapters.limiter } : {}),
    streamMaxLifetimeMs: env.MCP_STREAM_MAX_LIFETIME_MS,
    pingMs: env.MCP_SSE_PING_MS,
    maxHeaderBytes: env.MCP_MAX_HEADER_BYTES,
  });
  return { ...handler, registry };
}
