import type { Env } from "../config/env";
import type { AuthInfo } from "../auth/auth-info";
import { Registry, type RegistryContents } from "./registry";
import type { ServerIdentity } from "./server-info";
import { silentRequestLogger, stdoutRequestLogger } from "./request-log";
import { MemorySessionStore, type SessionStore } from "./transport/session-store";
import { createStreamableHttpHandler, type StreamableHttpHandler } from "./transport/streamable-http";

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
  adapters: { sessions?: SessionStore; authenticate?: (request: Request) => Promise<AuthInfo | undefined> } = {},
): McpEndpoint {
  const registry = new Registry(definition.contents, env.MCP_PAGE_SIZE);
  const handler = createStreamableHttpHandler({
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
