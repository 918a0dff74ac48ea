import { McpError, parseJsonBody, toMcpError } from "../../jsonrpc";
import { parseAccept, isJsonContentType } from "../../http/accept";
import { readBodyLimited } from "../../http/read-body";
import { assertOriginAllowed, type OriginPolicy } from "../../http/origin-guard";
import { errorResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import type { MethodEnv } from "../methods";
import { Header } from "../http-headers";
import { isLegacyVersion, isStatelessEraVersion } from "../protocol-versions";
import { logUnexpected, silentRequestLogger, type RequestLogger } from "../request-log";
import type { SessionStore } from "./session-store";
import { createSessionEra } from "./session-era";
import { createStatelessEra } from "./stateless-era";
import { ModernResults } from "./stateless/modern-results";
import type { RequestStateCodec } from "./stateless/request-state";
import type { NotificationHub } from "../notification-hub";
import type { CacheHint } from "../cache-hint";
import { MetaKey } from "../meta-keys";
import { PendingRequests } from "./pending-requests";
import { StreamTable } from "./resumable-streams";

export interface StreamableHttpOptions {
  env: MethodEnv;
  /** "stateful" mints Mcp-Session-Id at initialize; "stateless" never does. */
  sessionMode: "stateful" | "stateless";
  sessions: SessionStore;
  sessionTtlMs: number;
  origin: OriginPolicy;
  maxBodyBytes: number;
  maxBatch: number;
  maxJsonDepth: number;
  keepAliveMs: number;
  retryMs: number;
  resumeGraceMs: number;
  streamRetentionMs: number;
  clientRequestTimeoutMs: number;
  log: RequestLogger;
  hub: NotificationHub;
  requestStates: RequestStateCodec;
  /** ttlMs/cacheScope of list results in 2026-07-28. */
  listCache: CacheHint;
  listenMaxLifetimeMs: number;
  /** Resolves the caller (bearer token); anonymous when it returns undefined. */
  authenticate?: (request: Request) => Promise<AuthInfo | undefined>;
}

export interface StreamableHttpHandler {
  handle(request: Request): Promise<Response>;
  /** Tell subscribed sessions that a resource changed (notifications/resources/updated). */
  notifyResourceUpdated(uri: string): Promise<void>;
}

const ALLOW = "GET, POST, DELETE, OPTIONS";
/** Without sessions there is no GET stream and nothing to DELETE. */
const ALLOW_STATELESS = "POST, OPTIONS";

/**
 * The MCP endpoint over Streamable HTTP: edge checks (Origin, Content-Type, Accept, body limits),
 * then the era of each request (basic/versioning) picks the session era or the stateless
 * 2026-07-28 era. Runtime-neutral: web Request in, web Response out.
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  const stateful = options.sessionMode === "stateful";
  const streams = new StreamTable({
    maxEvents: 1_000,
    retentionMs: options.streamRetentionMs,
    resumeGraceMs: options.resumeGraceMs,
  });
  const pending = new PendingRequests(options.clientRequestTimeoutMs);
  const session = createSessionEra(options, { streams, pending });
  const stateless = createStatelessEra({
    env: options.env,
    hub: options.hub,
    streams,
    pending,
    states: options.requestStates,
    results: new ModernResults(options.env.info, options.listCache),
    keepAliveMs: options.keepAliveMs,
    listenMaxLifetimeMs: options.listenMaxLifetimeMs,
    log: options.log === silentRequestLogger ? undefined : options.log,
  });

  /**
   * Era per request (basic/versioning): a non-legacy MCP-Protocol-Version header, or the 2026
   * `_meta` protocolVersion in the body, selects the stateless era; everything else is the
   * session era (initialize, Mcp-Session-Id).
   */
  function isStatelessEra(request: Request, body: unknown): boolean {
    if (typeof body === "object" && body !== null && !Array.isArray(body)) {
      const meta = (body as { params?: { _meta?: unknown } }).params?._meta;
      if (typeof meta === "object" && meta !== null && MetaKey.ProtocolVersion in meta) return true;
    }
    const header = request.headers.get(Header.ProtocolVersion)?.trim();
    if (header === undefined || header === "") return false;
    // 2026-07-28 ignores Mcp-Session-Id; an unknown version inside a session is the session era's
    // to refuse (400 with the versions it speaks).
    if (isStatelessEraVersion(header)) return true;
    return !request.headers.has(Header.SessionId) && !isLegacyVersion(header);
  }

  async function handlePost(request: Request): Promise<Response> {
    if (!isJsonContentType(request.headers.get(Header.ContentType))) {
      throw McpError.invalidRequest("Unsupported Media Type: Content-Type must be application/json", undefined, 415);
    }
    const accept = parseAccept(request.headers.get(Header.Accept));
    if (!accept.json && !accept.eventStream) {
      throw McpError.invalidRequest("Not Acceptable: Accept must allow application/json or text/event-stream", undefined, 406);
    }
    const body = parseJsonBody(await readBodyLimited(request, options.maxBodyBytes), options.maxJsonDepth);
    if (isStatelessEra(request, body)) {
      const auth = options.authenticate ? await options.authenticate(request) : undefined;
      return stateless.post(request, body, accept, auth);
    }
    return session.post(request, body, accept);
  }

  async function notifyResourceUpdated(uri: string): Promise<void> {
    options.hub.publish({ kind: "resource_updated", uri });
  }

  const allow = { [Header.Allow]: stateful ? ALLOW : ALLOW_STATELESS };

  /** Any refusal thrown below becomes its JSON-RPC error body with the right HTTP status. */
  function refusal(method: string, thrown: unknown): Response {
    if (!(thrown instanceof McpError)) logUnexpected(`${method} transport`, thrown);
    const error = toMcpError(thrown);
    return errorResponse(error, null, error.httpStatus === 405 ? allow : undefined);
  }

  function route(request: Request): Promise<Response> | Response {
    assertOriginAllowed(request, options.origin);
    switch (request.method) {
      case "POST":
        return handlePost(request);
      case "GET":
      case "DELETE":
        // 2026-07-28 has no GET stream and no session to end (basic/transports §sessions).
        if (isStatelessEra(request, undefined)) {
          throw McpError.invalidRequest(`Method Not Allowed: ${request.method} is not part of protocol version 2026-07-28`, undefined, 405);
        }
        return request.method === "GET" ? session.get(request) : session.delete(request);
      case "OPTIONS":
        return new Response(null, { status: 204, headers: allow });
      default:
        throw McpError.invalidRequest(`Method Not Allowed: ${request.method.slice(0, 16)}`, undefined, 405);
    }
  }

  // Not async on purpose: one promise fewer per request (each costs under Next's async tracking).
  function handle(request: Request): Promise<Response> {
    try {
      const answer = route(request);
      return answer instanceof Promise ? answer.catch((thrown: unknown) => refusal(request.method, thrown)) : Promise.resolve(answer);
    } catch (thrown) {
      return Promise.resolve(refusal(request.method, thrown));
    }
  }

  return { handle, notifyResourceUpdated };
}
