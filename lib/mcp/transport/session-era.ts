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
import { errorResponse, jsonResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import { dispatch, initialize, type SessionControl } from "../methods";
import type { CallScope } from "../handler-context";
import { Header, MediaType, ResponseHeader } from "../http-headers";
import { DEFAULT_ASSUMED_VERSION, SUPPORTED_VERSIONS, allowsBatching, isSupportedVersion, primesStreams } from "../protocol-versions";
import type { LoggingLevel } from "../types";
import { logUnexpected, silentRequestLogger } from "../request-log";
import { mintSessionId, type SessionRecord, type SessionStore } from "./session-store";
import { CancelledError, InFlightRequests } from "./in-flight";
import { LazyAbort } from "./lazy-abort";
import { readRequestMeta } from "./request-meta";
import { settle } from "./settle";
import type { PendingRequests } from "./pending-requests";
import { PostExchange } from "./post-exchange";
import { sseBody, type StreamTable } from "./resumable-streams";
import { StandaloneStreams } from "./standalone-streams";
import { SSE_HEADERS } from "./sse";
import type { StreamableHttpOptions } from "./streamable-http";

/** Context of one POST after the transport checks: who, which session, which version. */
interface PostContext {
  request: Request;
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
export function createSessionEra(options: StreamableHttpOptions, shared: { streams: StreamTable; pending: PendingRequests }) {
  const { env, sessions } = options;
  const { streams, pending } = shared;
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
    const finish = (response: JsonRpcResponse) => {
      done();
      const cancelled = controller.reason instanceof CancelledError;
      if (log) logRequest(ctx, message, response, started, cancelled);
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
        protocolVersion: ctx.protocolVersion,
        sessionId: ctx.session?.id,
        auth: ctx.auth,
        meta: readRequestMeta(message.params),
        clientCapabilities: ctx.session?.clientCapabilities,
        logThreshold: ctx.session?.logLevel ?? "debug",
        channel: exchange.channelFor(controller),
      };
      return dispatch(env, message.method, { params: message.params ?? {}, scope, session: sessionControl(ctx.session) });
    }, (result) => finish(success(message.id, result)), fail);
  }

  function logRequest(ctx: PostContext, message: JsonRpcRequest, response: JsonRpcResponse, started: number, cancelled: boolean): void {
    const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
    const failed = "error" in response;
    options.log({
      method: message.method,
      ...(tool ? { tool } : {}),
      ...(ctx.session ? { session: ctx.session.id.slice(0, 8) } : {}),
      ms: Math.round((performance.now() - started) * 100) / 100,
      outcome: cancelled ? "cancelled" : failed ? "error" : response.result.isError === true ? "tool_error" : "ok",
      ...(failed ? { code: response.error.code } : {}),
    });
  }

  function handleNotification(ctx: PostContext, method: string, params: Record<string, unknown> | undefined): void {
    if (method === "notifications/cancelled") {
      // Anonymous stateless callers share no scope that tells them apart: a cancellation from one
      // could abort another's request with the same id. They cancel by closing the connection.
      if (!ctx.session && !ctx.auth) return;
      const id = params?.requestId;
      if (typeof id === "string" || typeof id === "number") {
        const reason = typeof params?.reason === "string" ? params.reason.slice(0, 200) : "cancelled by client";
        inFlight.cancel(callerScope(ctx.session, ctx.auth), id, reason);
      }
    }
    // notifications/initialized, roots/list_changed, progress: nothing to do; unknown ones are ignored
    // (JSON-RPC §4.1: notifications are never answered).
  }

  async function handleInitialize(request: Request, message: JsonRpcRequest, auth: AuthInfo | undefined): Promise<Response> {
    if (stateful && request.headers.get(Header.SessionId)) {
      throw McpError.invalidRequest("Bad Request: initialize must not carry Mcp-Session-Id; it starts a new session");
    }
    const started = performance.now();
    let negotiated;
    try {
      negotiated = initialize(env, message.params ?? {});
    } catch (thrown) {
      return errorResponse(toMcpError(thrown), message.id);
    }
    const headers = new Headers();
    if (stateful) {
      const now = Date.now();
      const id = mintSessionId();
      await sessions.create({
        id,
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

  /** A parsed POST body of the session era (2025-03-26, 2025-06-18, 2025-11-25). */
  async function post(request: Request, body: unknown, accept: Acceptable): Promise<Response> {
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (batch && items.length === 0) throw McpError.invalidRequest("Invalid Request: empty batch");
    if (batch && items.length > options.maxBatch) {
      throw McpError.invalidRequest(`Invalid Request: batch longer than ${options.maxBatch} messages`, { maxBatch: options.maxBatch });
    }
    const messages: ClassifiedMessage[] = items.map(classifyMessage);
    const auth = options.authenticate ? await options.authenticate(request) : undefined;

    const init = messages.find((m) => m.kind === "request" && m.message.method === "initialize");
    if (init && init.kind === "request") {
      // lifecycle (2025-03-26): "The initialization request MUST NOT be part of a JSON-RPC batch".
      if (batch) throw McpError.invalidRequest("Invalid Request: initialize must not be part of a batch");
      return handleInitialize(request, init.message, auth);
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
    const ctx: PostContext = { request, accept, auth, session, protocolVersion, headers };

    const slots: ({ kind: "request"; message: JsonRpcRequest } | { kind: "invalid"; response: JsonRpcResponse })[] = [];
    for (const m of messages) {
      if (m.kind === "notification") handleNotification(ctx, m.message.method, m.message.params);
      else if (m.kind === "response") pending.settle(m.message, session?.id);
      else if (m.kind === "request") slots.push(m);
      else slots.push({ kind: "invalid", response: failure(m.id, m.error) });
    }
    // Only notifications and responses: 202 Accepted, no body (basic/transports §sending messages).
    if (slots.length === 0) return new Response(null, { status: 202, headers });

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
    });
    slots.forEach((slot, index) => {
      if (slot.kind === "invalid") exchange.answer(index, slot.response);
      else runRequest(ctx, slot.message, exchange, index, controllers[index] as LazyAbort);
    });
    // Answered synchronously: nothing is left running, nothing to watch.
    if (exchange.ready) return exchange.ready;
    // A client that drops a plain JSON exchange has nothing to resume: its handlers stop now.
    request.signal?.addEventListener("abort", abortAll, { once: true });
    const response = await exchange.response;
    // Once streaming, disconnects are the stream's business (grace period, then abandon).
    if (response.headers.get("content-type") === MediaType.EventStream) {
      request.signal?.removeEventListener("abort", abortAll);
    }
    return response;
  }

  async function handleGet(request: Request): Promise<Response> {
    if (!stateful) {
      throw McpError.invalidRequest("Method Not Allowed: this server runs stateless and offers no GET stream", undefined, 405);
    }
    const accept = parseAccept(request.headers.get(Header.Accept));
    if (!accept.eventStream || request.headers.get(Header.Accept) === null) {
      throw McpError.invalidRequest("Not Acceptable: GET needs Accept: text/event-stream", undefined, 406);
    }
    const auth = options.authenticate ? await options.authenticate(request) : undefined;
    const found = resolveSession(request, auth);
    const session = found instanceof Promise ? await found : found;
    const protocolVersion = resolveVersion(request, session);
    if (!session) throw McpError.internal();
    const headers = new Headers(SSE_HEADERS);
    headers.set(ResponseHeader.SessionId, session.id);

    const lastEventId = request.headers.get(Header.LastEventId);
    if (lastEventId !== null) {
      const found = streams.resolve(lastEventId);
      if (!found || found.stream.sessionId !== session.id) {
        throw McpError.invalidRequest("Stream not found: the Last-Event-ID is unknown or expired", undefined, 404);
      }
      const { stream, afterSeq } = found;
      const body = sseBody((sink) => stream.attach(sink, afterSeq), (sink) => stream.detach(sink), options.keepAliveMs);
      return new Response(body, { status: 200, headers });
    }

    const stream = streams.open(session.id);
    standalone.set(session.id, stream);
    const prime = primesStreams(protocolVersion) ? { retryMs: options.retryMs } : undefined;
    const body = sseBody(
      (sink) => stream.attach(sink, 0, prime),
      (sink) => stream.detach(sink),
      options.keepAliveMs,
    );
    // A standalone stream has no work to abandon; once the grace period passes it is simply over.
    stream.onAbandoned(() => standalone.remove(session.id, stream));
    return new Response(body, { status: 200, headers });
  }

  async function handleDelete(request: Request): Promise<Response> {
    if (!stateful) {
      throw McpError.invalidRequest("Method Not Allowed: this server runs stateless; there is no session to end", undefined, 405);
    }
    const auth = options.authenticate ? await options.authenticate(request) : undefined;
    const found = resolveSession(request, auth);
    const session = found instanceof Promise ? await found : found;
    if (!session) throw McpError.internal();
    await sessions.delete(session.id);
    // Ending a session ends its work too: running handlers abort, open questions to the client fail.
    inFlight.cancelScope(session.id, "session terminated");
    pending.rejectSession(session.id, "session terminated");
    streams.closeSession(session.id);
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
