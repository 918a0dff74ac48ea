import { McpError, parseJsonBody, toMcpError } from "../../jsonrpc";
import { parseAccept, isJsonContentType } from "../../http/accept";
import { isIdentityEncoding, unsupportedEncoding } from "../../http/content-encoding";
import { BodyAborted, readBodyLimited, type BodyLimits } from "../../http/read-body";
import { requestHostOf, type HandleInit, type RequestHost } from "../../http/handle-init";
import { assertOriginAllowed } from "../../http/origin-guard";
import { applyCors, preflightResponse } from "../../http/cors";
import { errorResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import { Header } from "../protocol/http-headers";
import { logUnexpected, silentRequestLogger } from "../runtime/request-log";
import { RemoteStreams, clusterMirror } from "./cluster-streams";
import { assertHeadersWithin, authenticate } from "./edge-checks";
import { isStatelessEra } from "./era";
import type { StreamableHttpOptions } from "./options";
import { PendingRequests } from "./pending-requests";
import { StreamTable } from "./resumable-streams";
import { RequestRefusal } from "./request-refusal";
import { createSessionEra, type SessionEra, type SharedTransport } from "./session-era";
import { createStatelessEra, type StatelessEra } from "./stateless-era";
import { ModernResults } from "./stateless/modern-results";
import { ToolEvents } from "./tool-events";

export type { StreamableHttpOptions } from "./options";

export interface StreamableHttpHandler {
  handle(request: Request, init?: HandleInit): Promise<Response>;
  /**
   * Tell subscribed streams, on every instance, that a resource changed
   * (notifications/resources/updated). `owner`: whose resource it is (a subject, `null` for
   * anonymous callers'); absent, it is public and every subscriber hears of it.
   */
  notifyResourceUpdated(uri: string, owner?: string | null): Promise<void>;
}

// HEAD is answered as GET is, without the content (RFC 9110 §9.3.2).
const ALLOW = "GET, HEAD, POST, DELETE, OPTIONS";
/** Without sessions there is no GET stream and nothing to DELETE. */
const ALLOW_STATELESS = "POST, OPTIONS";

/** Both eras over one set of streams, pending questions and tool events. */
function buildEras(options: StreamableHttpOptions): { session: SessionEra; stateless: StatelessEra } {
  const { cluster } = options;
  const streams = new StreamTable(
    { maxEvents: 1_000, retentionMs: options.streamRetentionMs, resumeGraceMs: options.resumeGraceMs },
    cluster.streamLog ? clusterMirror(cluster.streamLog, cluster.bus, options.streamRetentionMs) : undefined,
  );
  const shared: SharedTransport = {
    streams,
    pending: new PendingRequests(options.clientRequestTimeoutMs),
    remote: cluster.streamLog ? new RemoteStreams(cluster.streamLog, cluster.bus, streams) : undefined,
    toolEvents: new ToolEvents(cluster.bus, cluster.streamLog !== undefined),
  };
  const session = createSessionEra(options, shared);
  const stateless = createStatelessEra({
    env: options.env,
    hub: options.hub,
    streams,
    pending: shared.pending,
    states: options.requestStates,
    results: new ModernResults(options.env.info, options.listCache),
    keepAliveMs: options.keepAliveMs,
    listenMaxLifetimeMs: options.listenMaxLifetimeMs,
    log: options.log === silentRequestLogger ? undefined : options.log,
    ...(options.limiter ? { limiter: options.limiter } : {}),
    toolEvents: shared.toolEvents,
  });
  return { session, stateless };
}

/**
 * The MCP endpoint over Streamable HTTP: edge checks (Origin, Content-Type, Accept, body limits),
 * then the era of each request (basic/versioning) picks the session era or the stateless
 * 2026-07-28 era. Runtime-neutral: web Request in, web Response out.
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  const { session, stateless } = buildEras(options);
  const allow = { [Header.Allow]: options.sessionMode === "stateful" ? ALLOW : ALLOW_STATELESS };
  const bodyLimits: BodyLimits = { maxBytes: options.maxBodyBytes, timeoutMs: options.bodyTimeoutMs };

  async function handlePost(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (!isJsonContentType(request.headers.get(Header.ContentType))) {
      throw McpError.invalidRequest("Unsupported Media Type: Content-Type must be application/json", undefined, 415);
    }
    const encoding = request.headers.get(Header.ContentEncoding);
    if (!isIdentityEncoding(encoding)) throw unsupportedEncoding(encoding ?? "");
    const accept = parseAccept(request.headers.get(Header.Accept));
    if (!accept.json && !accept.eventStream) {
      throw McpError.invalidRequest("Not Acceptable: Accept must allow application/json or text/event-stream", undefined, 406);
    }
    const body = parseJsonBody(await readBodyLimited(request, bodyLimits, host.body), options.maxJsonDepth);
    if (isStatelessEra(request, body)) return stateless.post(request, body, accept, auth, host);
    return session.post(request, body, accept, auth, host);
  }

  function route(request: Request, host: RequestHost): Promise<Response> | Response {
    assertOriginAllowed(request, options.origin);
    assertHeadersWithin(request, options.maxHeaderBytes);
    switch (request.method) {
      case "POST":
      case "GET":
      case "HEAD":
      case "DELETE": {
        const found = authenticate(options.access, request);
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
    if (request.method === "GET") return session.get(request, auth, host);
    return request.method === "HEAD" ? session.head(request, auth, host) : session.delete(request, auth, host);
  }

  // Not async on purpose: one promise fewer per request (each costs under Next's async tracking).
  function handle(request: Request, init?: HandleInit): Promise<Response> {
    const started = performance.now();
    // Checked, not trusted: a framework may call a route export with arguments of its own.
    const host = requestHostOf(request, init, options.clientAddresses);
    const cors = (response: Response) => (request.method === "OPTIONS" ? response : applyCors(response, request, options.origin));
    const refused = (thrown: unknown) => cors(refusal(options, allow, request, thrown, started));
    try {
      const answer = route(request, host);
      return answer instanceof Promise ? answer.then(cors, refused) : Promise.resolve(cors(answer));
    } catch (thrown) {
      return Promise.resolve(refused(thrown));
    }
  }

  async function notifyResourceUpdated(uri: string, owner?: string | null): Promise<void> {
    options.hub.publish({ kind: "resource_updated", uri, ...(owner === undefined ? {} : { owner }) });
  }

  return { handle, notifyResourceUpdated };
}

/**
 * A refusal's extra headers. One answered before the body was read (a bad Origin, token, Content-
 * Type or method) closes the connection: Node would otherwise read and drop the rest of the body
 * to keep the connection, for as long as a slow sender trickles it (its requestTimeout, 300 s),
 * and the unread rest must not be taken for the next request either (RFC 9112 §9.3).
 */
function refusalHeaders(request: Request, extra: Record<string, string> | undefined): Record<string, string> | undefined {
  if (request.body === null || request.bodyUsed || request.headers.get("content-length") === "0") return extra;
  return { ...extra, connection: "close" };
}

/**
 * Any refusal thrown below becomes its JSON-RPC error body with the right HTTP status, and one
 * log line (a refused request is a request too: 401s and 403s are worth seeing).
 */
function refusal(options: StreamableHttpOptions, allow: Record<string, string>, request: Request, thrown: unknown, started: number): Response {
  const method = request.method;
  const id = thrown instanceof RequestRefusal ? thrown.id : null;
  const cause = thrown instanceof RequestRefusal ? thrown.refused : thrown;
  if (!(cause instanceof McpError)) logUnexpected(`${method} transport`, cause);
  const error = toMcpError(cause);
  const response = errorResponse(error, id, refusalHeaders(request, error.httpStatus === 405 ? allow : undefined));
  if (options.log !== silentRequestLogger) {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    // A client that left mid-body cancelled its own request: nobody reads this answer.
    if (cause instanceof BodyAborted) options.log({ method: `HTTP ${method.slice(0, 16)}`, ms, outcome: "cancelled" });
    else options.log({ method: `HTTP ${method.slice(0, 16)}`, ms, outcome: "error", code: error.code, status: response.status });
  }
  return response;
}
