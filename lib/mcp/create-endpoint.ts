import { randomBytes } from "node:crypto";
import type { Env } from "../config/env";
import { LocalNotificationHub, type NotificationHub } from "./notification-hub";
import { MemorySpentStateStore, RequestStateCodec } from "./transport/stateless/request-state";
import type { AuthInfo } from "../auth/auth-info";
import { Registry, type RegistryContents } from "./registry";
import type { ServerIdentity } from "./server-info";
import { silentRequestLogger, stdoutRequestLogger } from "./request-log";
import { MemorySessionStore, type SessionStore } from "./transport/session-store";
import { createStreamableHttpHandler, type StreamableHttpHandler } from "./transport/streamable-http";

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
  adapters: { sessions?: SessionStore; hub?: NotificationHub; authenticate?: (request: Request) => Promise<AuthInfo | undefined> } = {},
): McpEndpoint {
  const registry = new Registry(definition.contents, env.MCP_PAGE_SIZE);
  const hub = adapters.hub ?? new LocalNotificationHub();
  registry.onChange((list) => hub.publish({ kind: "list_changed", list }));
  const handler = createStreamableHttpHandler({
    hub,
    requestStates: new RequestStateCodec(stateSecret(env), env.MCP_REQUEST_STATE_TTL_SECONDS * 1000, new MemorySpentStateStore()),
    listCache: { scope: "public", ttlMs: env.MCP_LIST_TTL_MS },
    listenMaxLifetimeMs: env.MCP_LISTEN_MAX_LIFETIME_MS,
    env: { registry, info: definition.info, instructions: definition.instructions },
    sessionMode: env.MCP_SESSION_MODE,
    sessions: adapters.sessions ?? new MemorySessionStore(),
    sessionTtlMs: env.MCP_SESSION_TTL_SECONDS * 1000,
    origin: { allowedOrigins: env.MCP_ALLOWED_ORIGINS, allowLoopback: env.MCP_ALLOW_LOOPBACK_ORIGINS },
    maxBodyBytes: env.MCP_MAX_BODY_BYTES,
    maxBatch: env.MCP_MAX_BATCH,
    maxJsonDepth: env.MCP_MAX_JSON_DEPTH,
    keepAliveMs: env.MCP_SSE_KEEPALIVE_MS,
    retryMs: env.MCP_SSE_RETRY_MS,
    resumeGraceMs: env.MCP_RESUME_GRACE_MS,
    streamRetentionMs: env.MCP_STREAM_RETENTION_MS,
    clientRequestTimeoutMs: env.MCP_CLIENT_REQUEST_TIMEOUT_MS,
    log: env.MCP_LOG_REQUESTS ? stdoutRequestLogger : silentRequestLogger,
    ...(adapters.authenticate ? { authenticate: adapters.authenticate } : {}),
  });
  return { ...handler, registry };
}
