import {
  McpError,
  classifyMessage,
  failure,
  success,
  toMcpError,
  type ClassifiedMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../jsonrpc";
import { parseAccept, type Acceptable } from "../../http/accept";
import type { RequestHost } from "../../http/handle-init";
import { errorResponse, jsonResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import { dispatch, initialize, type SessionControl } from "../methods";
import { authorizeRequest } from "../policy/authorize";
import { callerKey, rateLimitExceeded, rateLimitHeaders, spendOne, tooManyStreams, type RequestLimiter, type StreamSlot } from "../policy/rate-limit";
import type { CallScope } from "../runtime/handler-context";
import { Header, MediaType, NamedEvents, ResponseHeader } from "../protocol/http-headers";
import { DEFAULT_ASSUMED_VERSION, SUPPORTED_VERSIONS, allowsBatching, isSupportedVersion, primesStreams } from "../protocol/protocol-versions";
import type { LoggingLevel } from "../protocol/types";
import { logUnexpected, requestLogEntry, silentRequestLogger } from "../runtime/request-log";
import { mintSessionId, type SessionRecord, type SessionStore } from "./session-store";
import { CancelledError, InFlightRequests } from "./in-flight";
import { LazyAbort } from "./lazy-abort";
import { readRequestMeta } from "./request-meta";
import { settle } from "./settle";
import type { PendingRequests } from "./pending-requests";
import { PostExchange } from "./post-exchange";
import { parseEventId, sseBody, type StreamTable } from "./resumable-streams";
import { StandaloneStreams } from "./standalone-streams";
import type { RemoteStreams } from "./cluster-streams";
import { audienceOf, type ToolEvents } from "./tool-events";
import { admitter } from "./admit";
import { SSE_HEADERS, encodeSseComment } from "./sse";
import type { StreamableHttpOptions } from "./streamable-http";

/** The GET stream's first named event (seed 001). */
const CONNECTED = JSON.stringify({ status: "ready" });

/** GET /api/mcp?events=named (http-headers.ts): the caller asked for seed 001's named events. */
function wantsNamedEvents(request: Request): boolean {
  return request.url.includes("?") && new URL(request.url).searchParams.get(NamedEvents.param) === NamedEvents.value;
}

/** One message of a POST that needs an answer: a request to run, or its refusal. */
type Slot = { kind: "request"; message: JsonRpcRequest } | { kind: "invalid"; response: JsonRpcResponse };

/** Context of one POST after the transport checks: who, which session, which version. */
interface PostContext {
  request: Request;
  host: RequestHost;
  accept: Acceptable;
  auth: AuthInfo | undefined;
  session: SessionRecord | undefined;
  protocolVersion: string;
  headers: Headers;
}

/**
 * The session era of Streamable HTTP (2025-03-26, 2025-06-18, 2025-11-25; basic/transports):
 * initialize and optional sessions, POST answered with JSON or SSE, the GET stream, DELETE,
 * server → client requests on the call's stream, notifications/cancelled.
 */
export function createSessionEra(
  options: StreamableHttpOptions,
  shared: { streams: StreamTable; pending: PendingRequests; remote: RemoteStreams | undefined; toolEvents: ToolEvents },
) {
  const { env } = options;
  const { sessions, bus } = options.cluster;
  const { streams, pending, remote, toolEvents } = shared;
  const stateful = options.sessionMode === "stateful";
  const log = options.log === silentRequestLogger ? undefined : options.log;
  const standalone = new StandaloneStreams();
  const inFlight = new InFlightRequests();

  // Server events reach the session era's GET streams (server/tools §list changed notification;
  // server/resources §subscriptions: only sessions subscribed to the uri hear of its updates).
  options.hub.subscribe((event) => {
    if (event.kind === "list_changed") {
      const message = JSON.stringify({ jsonrpc: "2.0", method: `notifications/${event.list}/list_changed` });
      for (const [, stream] of standalone.entries()) stream.write(message);
      return;
    }
    const message = JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: event.uri } });
    for (const [sessionId, stream] of standalone.entries()) {
      void Promise.resolve(sessions.get(sessionId)).then((session) => {
        if (session?.subscriptions.includes(event.uri)) stream.write(message);
      });
    }
  });

  // Tool runs' named events go to the GET streams of their audience on this instance.
  toolEvents.deliverTo({
    deliver: (audience, event, data) => {
      const text = JSON.stringify(data);
      for (const stream of standalone.of(audience)) stream.write(text, event);
    },
    listening: (audience) => standalone.of(audience).length > 0,
  });

  // What other instances tell this one (lib/mcp/cluster/cluster.ts): answers to questions asked here,
  // cancellations of calls running here, sessions ended elsewhere, followers of streams.
  bus.subscribe((message) => {
    switch (message.kind) {
      case "client_response":
        pending.settle(message.response, message.sessionId);
        return;
      case "cancel":
        inFlight.cancel(message.scope, message.requestId, message.reason);
        return;
      case "session_ended":
        endSessionHere(message.sessionId, "session terminated");
        return;
      default:
        remote?.handle(message);
    }
  });

  /** A session's work on this instance stops: handlers abort, questions fail, its streams close. */
  function endSessionHere(sessionId: string, reason: string): void {
    inFlight.cancelScope(sessionId, reason);
    pending.rejectSession(sessionId, reason);
    streams.closeSession(sessionId);
  }

  /**
   * Whose request ids a notifications/cancelled may name. Without a session or a subject, all
   * anonymous stateless callers share one scope: ids should then be unique (e.g. UUIDs).
   */
  function callerScope(session: SessionRecord | undefined, auth: AuthInfo | undefined): string {
    return session?.id ?? (auth ? `sub:${auth.subject}` : "anonymous");
  }

  /** Look up the request's session, enforcing basic/transports §session management. */
  /** Synchronous when the store is (the in-process default): no promise on the hot path. */
  function resolveSession(request: Request, auth: AuthInfo | undefined): SessionRecord | undefined | Promise<SessionRecord | undefined> {
    if (!stateful) return undefined;
    const id = request.headers.get(Header.SessionId);
    if (id === null || id === "") {
      throw McpError.invalidRequest("Bad Request: Mcp-Session-Id header is required (send initialize first)");
    }
    if (id.length > 128) return checkSession(undefined, auth);
    const found = sessions.get(id);
    return found instanceof Promise ? found.then((s) => checkSession(s, auth)) : checkSession(found, auth);
  }

  function checkSession(session: SessionRecord | undefined, auth: AuthInfo | undefined): SessionRecord {
    // Another subject's session is answered exactly like an unknown one: no existence oracle.
    if (!session || session.subject !== auth?.subject) {
      throw McpError.invalidRequest("Session not found: it expired or was ended; initialize a new one", undefined, 404);
    }
    // Sliding expiry, written at most once per half-TTL so active sessions don't cost a write per request.
    const now = Date.now();
    if (session.expiresAt - now < options.sessionTtlMs / 2) {
      const expiresAt = now + options.sessionTtlMs;
      session.expiresAt = expiresAt;
      sessions.update(session.id, { expiresAt }).catch((e: unknown) => logUnexpected("session expiry update", e));
    }
    return session;
  }

  /** MCP-Protocol-Version (basic/transports §protocol version header, 2025-06-18+). */
  function resolveVersion(request: Request, session: SessionRecord | undefined): string {
    const header = request.headers.get(Header.ProtocolVersion);
    if (header !== null) {
      if (!isSupportedVersion(header)) {
        throw McpError.invalidRequest(`Bad Request: unsupported MCP-Protocol-Version "${header.slice(0, 64)}"`, {
          supported: SUPPORTED_VERSIONS,
        });
      }
      if (session && header !== session.protocolVersion) {
        throw McpError.invalidRequest(
          `Bad Request: MCP-Protocol-Version "${header}" differs from the session's negotiated "${session.protocolVersion}"`,
        );
      }
      return header;
    }
    return session?.protocolVersion ?? DEFAULT_ASSUMED_VERSION;
  }

  function sessionControl(session: SessionRecord | undefined): SessionControl | undefined {
    return session ? new StoredSessionControl(sessions, session.id) : undefined;
  }

  /**
   * Dispatch one request into its exchange slot. Synchronous methods answer before this returns,
   * so a quick call never waits on a promise; asynchronous ones answer when they settle.
   */
  function runRequest(ctx: PostContext, message: JsonRpcRequest, exchange: PostExchange, index: number, controller: LazyAbort): void {
    const started = log ? performance.now() : 0;
    const done = inFlight.start(callerScope(ctx.session, ctx.auth), message.id, controller);
    // A tool run's named events for its audience's GET streams (tool-events.ts), when anyone may listen.
    const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
    const audience = tool ? audienceOf(ctx.auth?.subject, ctx.session?.id) : undefined;
    const events = tool && toolEvents.wanted(audience) ? { tool, audience } : undefined;
    const finish = (response: JsonRpcResponse) => {
      done();
      const cancelled = controller.reason instanceof CancelledError;
      if (log) logRequest(ctx, message, response, started, cancelled);
      if (events && !cancelled) toolEvents.finished(events.audience, events.tool, response);
      exchange.answer(index, cancelled ? null : response);
    };
    const fail = (thrown: unknown) => {
      if (!(thrown instanceof McpError)) logUnexpected(message.method, thrown);
      finish(failure(message.id, toMcpError(thrown)));
    };
    settle(() => {
      const scope: CallScope = {
        requestId: message.id,
        get signal() {
          return controller.signal;
        },
        get aborted() {
          return controller.aborted;
        },
        protocolVersion: ctx.protocolVersion,
        sessionId: ctx.session?.id,
        auth: ctx.auth,
        meta: readRequestMeta(message.params),
        clientCapabilities: ctx.session?.clientCapabilities,
        logThreshold: ctx.session?.logLevel ?? "debug",
        channel: exchange.channelFor(controller),
        ...(events ? { onProgress: (progress: number, total: number | undefined) => toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
      };
      const admit = message.method === "tools/batch" ? admitter(env, options.limiter, callerKey(ctx.host.clientAddress, ctx.auth), ctx.auth) : undefined;
      return dispatch(env, message.method, { params: message.params ?? {}, scope, session: sessionControl(ctx.session), ...(admit ? { admit } : {}) });
    }, (result) => finish(success(message.id, result)), fail);
  }

  function logRequest(ctx: PostContext, message: JsonRpcRequest, response: JsonRpcResponse, started: number, cancelled: boolean): void {
    options.log(requestLogEntry(message, response, { started, cancelled, session: ctx.session?.id, subject: ctx.auth?.subject }));
  }

  function handleNotification(ctx: PostContext, method: string, params: Record<string, unknown> | undefined): void {
    if (method === "notifications/cancelled") {
      // Anonymous stateless callers share no scope that tells them apart: a cancellation from one
      // could abort another's request with the same id. They cancel by closing the connection.
      if (!ctx.session && !ctx.auth) return;
      const id = params?.requestId;
      if (typeof id === "string" || typeof id === "number") {
        const reason = typeof params?.reason === "string" ? params.reason.slice(0, 200) : "cancelled by client";
        const scope = callerScope(ctx.session, ctx.auth);
        // Not running here: perhaps on another instance.
        if (!inFlight.cancel(scope, id, reason)) bus.publish({ kind: "cancel", scope, requestId: id, reason });
      }
    }
    // notifications/initialized, roots/list_changed, progress: nothing to do; unknown ones are ignored
    // (JSON-RPC §4.1: notifications are never answered).
  }

  async function handleInitialize(request: Request, message: JsonRpcRequest, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (stateful && request.headers.get(Header.SessionId)) {
      throw McpError.invalidRequest("Bad Request: initialize must not carry Mcp-Session-Id; it starts a new session");
    }
    // initialize has a budget of its own: each one may create a session, and sessions are capped
    // per caller (session-store.ts), so a flood only ever evicts the flooder's own sessions.
    const caller = callerKey(host.clientAddress, auth);
    const headers = new Headers(options.limiter ? await spendOne(options.limiter, { method: "initialize", caller }) : undefined);
    const started = performance.now();
    let negotiated;
    try {
      negotiated = initialize(env, message.params ?? {});
    } catch (thrown) {
      return errorResponse(toMcpError(thrown), message.id);
    }
    if (stateful) {
      const now = Date.now();
      const id = mintSessionId();
      await sessions.create({
        id,
        caller,
        protocolVersion: negotiated.protocolVersion,
        clientInfo: negotiated.clientInfo,
        clientCapabilities: negotiated.clientCapabilities,
        subject: auth?.subject,
        logLevel: undefined,
        subscriptions: [],
        createdAt: now,
        expiresAt: now + options.sessionTtlMs,
      });
      headers.set(ResponseHeader.SessionId, id);
    }
    log?.({ method: "initialize", ms: Math.round((performance.now() - started) * 100) / 100, outcome: "ok" });
    return jsonResponse(success(message.id, negotiated.result), 200, headers);
  }

  /**
   * A request the caller may make, or its refusal: alone, the refusal is the HTTP answer (401/403
   * with the challenge); inside a 2025-03-26 batch, it is that message's error.
   */
  function authorized(message: JsonRpcRequest, auth: AuthInfo | undefined, batch: boolean): Slot {
    try {
      authorizeRequest(env, message.method, message.params, auth);
    } catch (thrown) {
      if (!batch) throw thrown;
      return { kind: "invalid", response: failure(message.id, toMcpError(thrown)) };
    }
    return { kind: "request", message };
  }

  /**
   * Every request spends its budgets (seed 001 §rate limiting): alone, a refusal is the HTTP
   * answer (429 with Retry-After); inside a 2025-03-26 batch, it is that message's error. A
   * single request's answer carries its RateLimit-* headers.
   */
  async function spendBudgets(
    caller: string,
    slots: Slot[],
    batch: boolean,
    headers: Headers,
    limiter: RequestLimiter,
  ): Promise<void> {
    await Promise.all(
      slots.map(async (slot, index) => {
        if (slot.kind !== "request") return;
        const { method, params } = slot.message;
        const tool = method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
        const decision = await limiter.check({ method, ...(tool ? { tool } : {}), caller });
        if (!decision) return;
        if (!decision.allowed) {
          if (!batch) throw rateLimitExceeded(decision);
          slots[index] = { kind: "invalid", response: failure(slot.message.id, rateLimitExceeded(decision)) };
          return;
        }
        if (!batch) for (const [k, v] of Object.entries(rateLimitHeaders(decision))) headers.set(k, v);
      }),
    );
  }

  /** A parsed POST body of the session era (2025-03-26, 2025-06-18, 2025-11-25). */
  async function post(request: Request, body: unknown, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (batch && items.length === 0) throw McpError.invalidRequest("Invalid Request: empty batch");
    if (batch && items.length > options.maxBatch) {
      throw McpError.invalidRequest(`Invalid Request: batch longer than ${options.maxBatch} messages`, { maxBatch: options.maxBatch });
    }
    const messages: ClassifiedMessage[] = items.map(classifyMessage);

    const initialize = messages.find((m) => m.kind === "request" && m.message.method === "initialize");
    if (initialize && initialize.kind === "request") {
      // lifecycle (2025-03-26): "The initialization request MUST NOT be part of a JSON-RPC batch".
      if (batch) throw McpError.invalidRequest("Invalid Request: initialize must not be part of a batch");
      return handleInitialize(request, initialize.message, auth, host);
    }

    const found = resolveSession(request, auth);
    const session = found instanceof Promise ? await found : found;
    const protocolVersion = resolveVersion(request, session);
    if (batch && !allowsBatching(protocolVersion)) {
      throw McpError.invalidRequest(
        `Invalid Request: JSON-RPC batches are not supported in protocol version ${protocolVersion} (only 2025-03-26 allows them)`,
      );
    }
    const first = messages[0];
    if (!batch && first?.kind === "invalid") {
      return errorResponse(new McpError(first.error.code, first.error.message, first.error.data), first.id);
    }

    const headers = new Headers();
    if (session) headers.set(ResponseHeader.SessionId, session.id);
    const ctx: PostContext = { request, host, accept, auth, session, protocolVersion, headers };
    // Notifications and client responses get no answer of their own, but cost work: each spends
    // the budget of "every other method" before any of them is handled.
    if (options.limiter) {
      const caller = callerKey(host.clientAddress, auth);
      for (const m of messages) {
        if (m.kind === "notification") await spendOne(options.limiter, { method: m.message.method, caller });
        else if (m.kind === "response") await spendOne(options.limiter, { method: "response", caller });
      }
    }

    const slots: Slot[] = [];
    for (const m of messages) {
      if (m.kind === "notification") handleNotification(ctx, m.message.method, m.message.params);
      // An answer to a question asked elsewhere goes to whichever instance asked it.
      else if (m.kind === "response") {
        if (!pending.settle(m.message, session?.id) && session) bus.publish({ kind: "client_response", sessionId: session.id, response: m.message });
      }
      else if (m.kind === "request") slots.push(authorized(m.message, auth, batch));
      else slots.push({ kind: "invalid", response: failure(m.id, m.error) });
    }
    // Only notifications and responses: 202 Accepted, no body (basic/transports §sending messages).
    if (slots.length === 0) return new Response(null, { status: 202, headers });
    if (options.limiter) await spendBudgets(callerKey(host.clientAddress, auth), slots, batch, headers, options.limiter);

    const controllers = slots.map(() => new LazyAbort());
    const abortAll = () => {
      const reason = new CancelledError("client went away");
      for (const c of controllers) c.abort(reason);
    };
    const exchange = new PostExchange({
      canStream: accept.eventStream,
      canJson: accept.json,
      batch,
      expected: slots.length,
      sessionId: session?.id,
      resumable: stateful && primesStreams(protocolVersion),
      eventLog: true,
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      headers,
      streams,
      pending,
      abortAll,
      wholeBodies: host.wholeBodies,
    });
    slots.forEach((slot, index) => {
      if (slot.kind === "invalid") exchange.answer(index, slot.response);
      else runRequest(ctx, slot.message, exchange, index, controllers[index] as LazyAbort);
    });
    // Answered synchronously: nothing is left running, nothing to watch.
    if (exchange.ready) return exchange.ready;
    // A client that drops a plain JSON exchange has nothing to resume: its handlers stop now.
    host.clientGone.addEventListener("abort", abortAll, { once: true });
    const response = await exchange.response;
    // Once streaming, disconnects are the stream's business (grace period, then abandon).
    if (response.headers.get("content-type") === MediaType.EventStream) {
      host.clientGone.removeEventListener("abort", abortAll);
    }
    return response;
  }

  async function handleGet(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (!stateful) {
      throw McpError.invalidRequest("Method Not Allowed: this server runs stateless and offers no GET stream", undefined, 405);
    }
    const accept = parseAccept(request.headers.get(Header.Accept));
    if (!accept.eventStream || request.headers.get(Header.Accept) === null) {
      throw McpError.invalidRequest("Not Acceptable: GET needs Accept: text/event-stream", undefined, 406);
    }
    const found = resolveSession(request, auth);
    const session = found instanceof Promise ? await found : found;
    const protocolVersion = resolveVersion(request, session);
    if (!session) throw McpError.internal();
    const headers = new Headers(SSE_HEADERS);
    headers.set(ResponseHeader.SessionId, session.id);
    const caller = callerKey(host.clientAddress, auth);
    if (options.limiter) await spendOne(options.limiter, { method: "GET", caller });

    // Each open GET connection holds one of the caller's stream slots until it ends.
    const slot = await openStreamSlot(caller);
    const connection = { keepAliveMs: options.keepAliveMs, maxLifetimeMs: options.streamMaxLifetimeMs, onEnd: () => slot?.release() };
    try {
      const lastEventId = request.headers.get(Header.LastEventId);
      if (lastEventId !== null) {
        const notFound = () => McpError.invalidRequest("Stream not found: the Last-Event-ID is unknown or expired", undefined, 404);
        const found = streams.resolve(lastEventId);
        if (found) {
          if (found.stream.sessionId !== session.id) throw notFound();
          const { stream, afterSeq } = found;
          const body = sseBody(
            (sink) => {
              // Headers go out now, not with the next event (which may be a while).
              sink.write(encodeSseComment("resumed"));
              stream.attach(sink, afterSeq);
            },
            (sink) => stream.detach(sink),
            connection,
          );
          return new Response(body, { status: 200, headers });
        }
        // Not a stream of this instance: perhaps of another one (the shared log knows).
        const parsed = parseEventId(lastEventId);
        const body = parsed && remote ? await remote.resume(parsed.streamId, parsed.afterSeq, session.id, connection) : undefined;
        if (!body) throw notFound();
        return new Response(body, { status: 200, headers });
      }

      const stream = streams.open(session.id);
      const named = wantsNamedEvents(request);
      // Only a stream that asked hears of tool runs (tool-events.ts delivers by audience).
      standalone.set(session.id, stream, named ? audienceOf(session.subject, session.id) : undefined);
      const prime = primesStreams(protocolVersion) ? { retryMs: options.retryMs } : undefined;
      const body = sseBody(
        (sink) => {
          stream.attach(sink, 0, prime);
          // Seed 001's named events, on request: ready at once, then a named ping every 30 s.
          if (named) stream.write(CONNECTED, "connected");
        },
        (sink) => stream.detach(sink),
        // Everyone else gets the ping as a comment, which every SSE client ignores.
        named ? { ...connection, keepAliveMs: 0, pingMs: options.pingMs } : { ...connection, keepAliveMs: options.pingMs },
      );
      // A standalone stream has no work to abandon; once the grace period passes it is simply over.
      stream.onAbandoned(() => standalone.remove(session.id, stream));
      return new Response(body, { status: 200, headers });
    } catch (thrown) {
      slot?.release();
      throw thrown;
    }
  }

  /** A stream slot for the caller, or the 429 that says all of them are open. */
  async function openStreamSlot(caller: string): Promise<StreamSlot | undefined> {
    const limiter = options.limiter;
    if (!limiter) return undefined;
    const slot = await limiter.openStream(caller);
    if (!slot) throw tooManyStreams(limiter.maxStreams);
    return slot;
  }

  async function handleDelete(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (!stateful) {
      throw McpError.invalidRequest("Method Not Allowed: this server runs stateless; there is no session to end", undefined, 405);
    }
    if (options.limiter) await spendOne(options.limiter, { method: "DELETE", caller: callerKey(host.clientAddress, auth) });
    const found = resolveSession(request, auth);
    const session = found instanceof Promise ? await found : found;
    if (!session) throw McpError.internal();
    await sessions.delete(session.id);
    // Ending a session ends its work too, on every instance: running handlers abort, open
    // questions to the client fail, streams close.
    endSessionHere(session.id, "session terminated");
    bus.publish({ kind: "session_ended", sessionId: session.id });
    return new Response(null, { status: 200 });
  }

  return { post, get: handleGet, delete: handleDelete };
}

/** Session state changes a method may make, persisted through the SessionStore. */
class StoredSessionControl implements SessionControl {
  constructor(
    private readonly sessions: SessionStore,
    private readonly id: string,
  ) {}

  setLogLevel(level: LoggingLevel): Promise<void> {
    return this.sessions.update(this.id, { logLevel: level });
  }

  async subscribe(uri: string): Promise<void> {
    const current = (await this.sessions.get(this.id))?.subscriptions ?? [];
    if (!current.includes(uri)) await this.sessions.update(this.id, { subscriptions: [...current, uri] });
  }

  async unsubscribe(uri: string): Promise<void> {
    const current = (await this.sessions.get(this.id))?.subscriptions ?? [];
    await this.sessions.update(this.id, { subscriptions: current.filter((u) => u !== uri) });
  }
}
