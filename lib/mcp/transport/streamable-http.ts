import { McpError, parseJsonBody, toMcpError } from "../../jsonrpc";
import { parseAccept, isJsonContentType } from "../../http/accept";
import { readBodyLimited } from "../../http/read-body";
import { requestHostOf, type HandleInit, type RequestHost } from "../../http/handle-init";
import type { ClientAddressPolicy } from "../../http/client-address";
import { assertOriginAllowed, type OriginPolicy } from "../../http/origin-guard";
import { applyCors, preflightResponse } from "../../http/cors";
import { errorResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import { unauthorized, type AccessControl } from "../../auth/access-control";
import type { RequestLimiter } from "../policy/rate-limit";
import type { MethodEnv } from "../methods";
import { Header } from "../protocol/http-headers";
import { isLegacyVersion, isStatelessEraVersion } from "../protocol/protocol-versions";
import { logUnexpected, silentRequestLogger, type RequestLogger } from "../runtime/request-log";
import type { Cluster } from "../cluster/cluster";
import { RemoteStreams, clusterMirror } from "./cluster-streams";
import { ToolEvents } from "./tool-events";
import { createSessionEra } from "./session-era";
import { createStatelessEra } from "./stateless-era";
import { ModernResults } from "./stateless/modern-results";
import type { RequestStateCodec } from "./stateless/request-state";
import type { NotificationHub } from "../cluster/notification-hub";
import type { CacheHint } from "../protocol/cache-hint";
import { MetaKey } from "../protocol/meta-keys";
import { PendingRequests } from "./pending-requests";
import { StreamTable } from "./resumable-streams";

export interface StreamableHttpOptions {
  env: MethodEnv;
  /** "stateful" mints Mcp-Session-Id at initialize; "stateless" never does. */
  sessionMode: "stateful" | "stateless";
  /** Sessions, stream logs and the bus between instances (in process for a single one). */
  cluster: Cluster;
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
  /** Who may call what (bearer tokens, required or mixed); absent: everything is open. */
  access?: AccessControl;
  /** Budgets per caller and a cap on open streams; absent: no limits. */
  limiter?: RequestLimiter;
  /** GET stream connections end after this long (clients reconnect). */
  streamMaxLifetimeMs: number;
  /** GET streams send a named `ping` event this often (seed 001: every 30 s). */
  pingMs: number;
  /** All request headers together; more is refused with 431. */
  maxHeaderBytes: number;
  /** Which sources of the client's address are believed (anonymous rate limits). */
  clientAddresses: ClientAddressPolicy;
}

export interface StreamableHttpHandler {
  handle(request: Request, init?: HandleInit): Promise<Response>;
  /** Tell subscribed sessions that a resource changed (notifications/resources/updated). */
  notifyResourceUpdated(uri: string): Promise<void>;
}

const ALLOW = "GET, POST, DELETE, OPTIONS";

/** Node's own cap on a request's header section (--max-http-header-size): it answers 431 itself. */
const NODE_HEADER_LIMIT = 16 * 1024;

/** RFC 6585 §5: refuse oversized header sections before reading anything else. */
function assertHeadersWithin(request: Request, maxBytes: number): void {
  // Node's HTTP parser already refuses more than its limit; count only when configured tighter.
  if (maxBytes >= NODE_HEADER_LIMIT) return;
  let total = 0;
  for (const [name, value] of request.headers) total += name.length + value.length + 4;
  if (total > maxBytes) {
    throw McpError.invalidRequest(`Request Header Fields Too Large: more than ${maxBytes} bytes of headers`, { maxHeaderBytes: maxBytes }, 431);
  }
}
/** Without sessions there is no GET stream and nothing to DELETE. */
const ALLOW_STATELESS = "POST, OPTIONS";

/**
 * The MCP endpoint over Streamable HTTP: edge checks (Origin, Content-Type, Accept, body limits),
 * then the era of each request (basic/versioning) picks the session era or the stateless
 * 2026-07-28 era. Runtime-neutral: web Request in, web Response out.
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  const stateful = options.sessionMode === "stateful";
  const { cluster } = options;
  const streams = new StreamTable(
    { maxEvents: 1_000, retentionMs: options.streamRetentionMs, resumeGraceMs: options.resumeGraceMs },
    cluster.streamLog ? clusterMirror(cluster.streamLog, cluster.bus, options.streamRetentionMs) : undefined,
  );
  const remote = cluster.streamLog ? new RemoteStreams(cluster.streamLog, cluster.bus, streams) : undefined;
  const pending = new PendingRequests(options.clientRequestTimeoutMs);
  const toolEvents = new ToolEvents(cluster.bus, cluster.streamLog !== undefined);
  const session = createSessionEra(options, { streams, pending, remote, toolEvents });
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
    ...(options.limiter ? { limiter: options.limiter } : {}),
    toolEvents,
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

  /**
   * The caller, checked before anything else runs (basic/authorization §token handling): a bad
   * token is a 401 whatever the request; no token is a 401 only when tokens are required.
   */
  function authenticate(request: Request): AuthInfo | undefined | Promise<AuthInfo | undefined> {
    const access = options.access;
    if (!access) return undefined;
    const found = access.authenticate(request);
    const check = (auth: AuthInfo | undefined) => {
      if (!auth && access.mode === "required") throw unauthorized(access);
      return auth;
    };
    return found instanceof Promise ? found.then(check) : check(found);
  }

  async function handlePost(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (!isJsonContentType(request.headers.get(Header.ContentType))) {
      throw McpError.invalidRequest("Unsupported Media Type: Content-Type must be application/json", undefined, 415);
    }
    const accept = parseAccept(request.headers.get(Header.Accept));
    if (!accept.json && !accept.eventStream) {
      throw McpError.invalidRequest("Not Acceptable: Accept must allow application/json or text/event-stream", undefined, 406);
    }
    const body = parseJsonBody(await readBodyLimited(request, options.maxBodyBytes, host.body), options.maxJsonDepth);
    if (isStatelessEra(request, body)) return stateless.post(request, body, accept, auth, host);
    return session.post(request, body, accept, auth, host);
  }

  async function notifyResourceUpdated(uri: string): Promise<void> {
    options.hub.publish({ kind: "resource_updated", uri });
  }

  const allow = { [Header.Allow]: stateful ? ALLOW : ALLOW_STATELESS };

  /**
   * Any refusal thrown below becomes its JSON-RPC error body with the right HTTP status, and one
   * log line (a refused request is a request too: 401s and 403s are worth seeing).
   */
  function refusal(method: string, thrown: unknown, started: number): Response {
    if (!(thrown instanceof McpError)) logUnexpected(`${method} transport`, thrown);
    const error = toMcpError(thrown);
    const response = errorResponse(error, null, error.httpStatus === 405 ? allow : undefined);
    if (options.log !== silentRequestLogger) {
      options.log({ method: `HTTP ${method.slice(0, 16)}`, ms: Math.round((performance.now() - started) * 100) / 100, outcome: "error", code: error.code, status: response.status });
    }
    return response;
  }

  function route(request: Request, host: RequestHost): Promise<Response> | Response {
    assertOriginAllowed(request, options.origin);
    assertHeadersWithin(request, options.maxHeaderBytes);
    switch (request.method) {
      case "POST":
      case "GET":
      case "DELETE": {
        const found = authenticate(request);
        return found instanceof Promise ? found.then((auth) => routeAuthenticated(request, auth, host)) : routeAuthenticated(request, found, host);
      }
      case "OPTIONS":
        return preflightResponse(request, { ...options.origin, methods: allow[Header.Allow] }, allow);
      default:
        throw McpError.invalidRequest(`Method Not Allowed: ${request.method.slice(0, 16)}`, undefined, 405);
    }
  }

  function routeAuthenticated(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (request.method === "POST") return handlePost(request, auth, host);
    // 2026-07-28 has no GET stream and no session to end (basic/transports §sessions).
    if (isStatelessEra(request, undefined)) {
      throw McpError.invalidRequest(`Method Not Allowed: ${request.method} is not part of protocol version 2026-07-28`, undefined, 405);
    }
    return request.method === "GET" ? session.get(request, auth, host) : session.delete(request, auth, host);
  }

  // Not async on purpose: one promise fewer per request (each costs under Next's async tracking).
  function handle(request: Request, init?: HandleInit): Promise<Response> {
    const started = performance.now();
    // Checked, not trusted: a framework may call a route export with arguments of its own.
    const host = requestHostOf(request, init, options.clientAddresses);
    const cors = (response: Response) => (request.method === "OPTIONS" ? response : applyCors(response, request, options.origin));
    try {
      const answer = route(request, host);
      return answer instanceof Promise
        ? answer.then(cors, (thrown: unknown) => cors(refusal(request.method, thrown, started)))
        : Promise.resolve(cors(answer));
    } catch (thrown) {
      return Promise.resolve(cors(refusal(request.method, thrown, started)));
    }
  }

  return { handle, notifyResourceUpdated };
}
