import { ErrorCode, McpError, classifyMessage, failure, type ClassifiedMessage, type JsonRpcId } from "../../../jsonrpc";
import type { Acceptable } from "../../../http/accept";
import type { RequestHost } from "../../../http/handle-init";
import { errorResponse } from "../../../http/json-response";
import type { AuthInfo } from "../../../auth/auth-info";
import { callerKey } from "../../policy/rate-limit";
import { MediaType, ResponseHeader } from "../../protocol/http-headers";
import { MetaKey } from "../../protocol/meta-keys";
import { allowsBatching, allowsErrorResponsesWithoutId, primesStreams } from "../../protocol/protocol-versions";
import { CancelledError } from "../in-flight";
import { LazyAbort } from "../lazy-abort";
import { PostExchange } from "../post-exchange";
import { rethrowAsRefusalOf } from "../request-refusal";
import { authorized, checkAhead, giveBackAhead, spendBudgets, spendUnanswered, type CheckAhead, type Slot } from "./budgets";
import { handleInitialize } from "./initialize";
import { resolveSession, resolveVersion } from "./lookup";
import { handleNotification } from "./notifications";
import { runRequest, type PostContext } from "./run-request";
import type { SessionEraState } from "./state";
import type { SessionRecord } from "../session-store";
import type { RequestLimiter } from "../../policy/rate-limit";

/**
 * A parsed POST body of the session era (2025-03-26, 2025-06-18, 2025-11-25). Not async: a quick
 * call in a session kept in this process answers without a promise of its own.
 */
export function handlePost(
  state: SessionEraState,
  request: Request,
  body: unknown,
  accept: Acceptable,
  auth: AuthInfo | undefined,
  host: RequestHost,
): Response | Promise<Response> {
  const batch = Array.isArray(body);
  const messages = classifyBody(state, body);
  // A lone message that is no JSON-RPC message at all (an id of null, no method) is refused as
  // what it is before any session is looked up: without Mcp-Session-Id it was told to send
  // initialize first, which would not have helped (outside probe, 2026-11-29).
  const only = messages[0];
  if (!batch && only?.kind === "invalid") {
    const error = new McpError(only.error.code, only.error.message, only.error.data);
    if (only.id === null) throw error;
    rethrowAsRefusalOf(only.id, error);
  }
  const initialize = messages.find((m) => m.kind === "request" && m.message.method === "initialize");
  if (initialize && initialize.kind === "request") {
    // lifecycle (2025-03-26): "The initialization request MUST NOT be part of a JSON-RPC batch".
    if (batch) throw McpError.invalidRequest("Invalid Request: initialize must not be part of a batch");
    // Its refusals (a spent budget, a session store that does not answer) carry its id: it was readable.
    const id = initialize.message.id;
    return handleInitialize(state, request, initialize.message, accept, auth, host).catch((thrown: unknown) => rethrowAsRefusalOf(id, thrown));
  }

  // The session lookup and a lone request's budget check are both issued before either is
  // awaited: with Redis they leave in one write (lib/cluster/ioredis-connection.ts). A request
  // refused before its budget counts (unknown session, 400, 403) gets it back.
  const lone = !batch && messages[0]?.kind === "request" ? messages[0].message : undefined;
  const found = lone ? sessionOfRequest(state, request, auth, lone.id) : resolveSession(state, request, auth);
  const limiter = state.limiter;
  const ahead = limiter && lone ? checkAhead(state.env.registry, limiter, callerKey(host.clientAddress, auth), lone) : undefined;
  const post: SessionPost = { request, messages, batch, accept, auth, host };
  if (!ahead || !limiter) return postInSession(state, post, found, undefined);
  const giveBack = (thrown: unknown): never => {
    giveBackAhead(limiter, ahead);
    throw thrown;
  };
  try {
    const answered = postInSession(state, post, found, ahead);
    return answered instanceof Promise ? answered.catch(giveBack) : answered;
  } catch (thrown) {
    return giveBack(thrown);
  }
}

/**
 * The session of a POST of one request: a refusal (no Mcp-Session-Id 400, an unknown or ended
 * session 404) answers with the request's id, as every later refusal does (request-refusal.ts).
 */
function sessionOfRequest(state: SessionEraState, request: Request, auth: AuthInfo | undefined, id: JsonRpcId): ReturnType<typeof resolveSession> {
  try {
    const found = resolveSession(state, request, auth);
    return found instanceof Promise ? found.catch((thrown: unknown) => rethrowAsRefusalOf(id, thrown)) : found;
  } catch (thrown) {
    return rethrowAsRefusalOf(id, thrown);
  }
}

interface SessionPost {
  request: Request;
  messages: ClassifiedMessage[];
  batch: boolean;
  accept: Acceptable;
  auth: AuthInfo | undefined;
  host: RequestHost;
}

function postInSession(state: SessionEraState, post: SessionPost, found: ReturnType<typeof resolveSession>, ahead: CheckAhead | undefined): Response | Promise<Response> {
  return found instanceof Promise ? found.then((session) => answerInSession(state, post, session, ahead)) : answerInSession(state, post, found, ahead);
}

/**
 * inSession; for a POST of one request, a refusal past the session lookup carries that request's
 * id (request-refusal.ts). No closure is made unless the answer has to be waited for: every
 * session request passes here.
 */
function answerInSession(state: SessionEraState, post: SessionPost, session: SessionRecord | undefined, ahead: CheckAhead | undefined): Response | Promise<Response> {
  const first = post.messages[0];
  if (post.batch || first?.kind !== "request") return inSession(state, post, session, ahead);
  const id = first.message.id;
  try {
    const answer = inSession(state, post, session, ahead);
    return answer instanceof Promise ? answer.catch((thrown: unknown) => rethrowAsRefusalOf(id, thrown)) : answer;
  } catch (thrown) {
    return rethrowAsRefusalOf(id, thrown);
  }
}

/** The rest of a POST that is not initialize: its version, authorization, budgets and answers. */
function inSession(
  state: SessionEraState,
  { request, messages: posted, batch, accept, auth, host }: SessionPost,
  session: SessionRecord | undefined,
  ahead: CheckAhead | undefined,
): Response | Promise<Response> {
  let messages = posted;
  const protocolVersion = resolveVersion(request, session);
  if (batch && !allowsBatching(protocolVersion)) {
    throw McpError.invalidRequest(
      `Invalid Request: JSON-RPC batches are not supported in protocol version ${protocolVersion} (only 2025-03-26 allows them)`,
    );
  }
  if (!allowsErrorResponsesWithoutId(protocolVersion)) messages = withIdsRequired(messages, protocolVersion);
  const first = messages[0];
  if (!batch && first?.kind === "invalid") {
    return errorResponse(new McpError(first.error.code, first.error.message, first.error.data), first.id);
  }

  const headers: Record<string, string> = session ? { [ResponseHeader.SessionId]: session.id } : {};
  const ctx: PostContext = { request, host, accept, auth, session, protocolVersion, headers };
  if (state.limiter) return answerLimited(state, ctx, messages, batch, state.limiter, ahead);
  const stored: Promise<void>[] = [];
  const slots = slotsOf(state, ctx, messages, batch, stored);
  if (slots.length === 0) return accepted(headers, stored);
  return answerSlots(state, ctx, slots, batch);
}

/** Only notifications and responses: 202 Accepted, no body (basic/transports §sending messages), once what they changed is stored. */
function accepted(headers: Record<string, string>, stored: Promise<void>[]): Response | Promise<Response> {
  if (stored.length === 0) return new Response(null, { status: 202, headers });
  return Promise.all(stored).then(() => new Response(null, { status: 202, headers }));
}

/** The same with rate limits: every message spends, answered or not, before anything runs. */
async function answerLimited(state: SessionEraState, ctx: PostContext, messages: ClassifiedMessage[], batch: boolean, limiter: RequestLimiter, ahead: CheckAhead | undefined): Promise<Response> {
  const caller = callerKey(ctx.host.clientAddress, ctx.auth);
  await spendUnanswered(limiter, caller, messages);
  const stored: Promise<void>[] = [];
  const slots = slotsOf(state, ctx, messages, batch, stored);
  if (slots.length === 0) return accepted(ctx.headers, stored);
  await spendBudgets(state.env.registry, caller, slots, batch, ctx.headers, limiter, ahead);
  return answerSlots(state, ctx, slots, batch);
}

/**
 * Before 2025-11-25 the schema requires a response's id (JSONRPCError.id): an error response
 * without one is an invalid message there. A copy only when there is one (rare).
 */
function withIdsRequired(messages: ClassifiedMessage[], protocolVersion: string): ClassifiedMessage[] {
  if (!messages.some((m) => m.kind === "response" && m.idOmitted)) return messages;
  return messages.map((m) =>
    m.kind === "response" && m.idOmitted
      ? { kind: "invalid", id: null, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: an error response needs an "id" in protocol version ${protocolVersion} (null when it names no request)` } }
      : m,
  );
}

/**
 * A batched request that names a protocol version in its `_meta` (2026-07-28's per-request
 * version): sent alone it is served in that era and its version must match the header (-32020,
 * request-checks.ts); in a 2025-03-26 batch it ran under the session's rules instead, so the same
 * request had two answers (outside probe, 2026-11-29). It gets the lone request's refusal.
 */
function modernMetaIn(params: Record<string, unknown> | undefined, protocolVersion: string): McpError | undefined {
  const meta = params?._meta;
  if (typeof meta !== "object" || meta === null || !(MetaKey.ProtocolVersion in meta)) return undefined;
  const named = (meta as Record<string, unknown>)[MetaKey.ProtocolVersion];
  // Naming the session's own version disagrees with nothing.
  if (named === protocolVersion) return undefined;
  const version = typeof named === "string" ? named.slice(0, 64) : JSON.stringify(named)?.slice(0, 64);
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: _meta names protocol version "${version}", but a batch is served in the session's version, ${protocolVersion}`);
}

/**
 * Notifications and responses are handled here; requests (and invalid messages) become slots to
 * answer. Session writes the notifications made go to `stored`.
 */
function slotsOf(state: SessionEraState, ctx: PostContext, messages: ClassifiedMessage[], batch: boolean, stored: Promise<void>[]): Slot[] {
  const { session, auth } = ctx;
  const slots: Slot[] = [];
  for (const m of messages) {
    if (m.kind === "notification") {
      const write = handleNotification(state, ctx, m.message.method, m.message.params);
      if (write) stored.push(write);
    }
    // An answer to a question asked elsewhere goes to whichever instance asked it.
    else if (m.kind === "response") {
      // An error naming no request (id null or absent) answers nothing we can find: accepted, not routed.
      if (m.message.id === null) continue;
      if (!state.pending.settle(m.message, session?.id) && session) state.bus.publish({ kind: "client_response", sessionId: session.id, response: m.message });
    }
    else if (m.kind === "request") {
      const stray = batch ? modernMetaIn(m.message.params, ctx.protocolVersion) : undefined;
      slots.push(stray ? { kind: "invalid", response: failure(m.message.id, stray) } : authorized(state.env, m.message, auth, batch));
    }
    else slots.push({ kind: "invalid", response: failure(m.id, m.error) });
  }
  return slots;
}

/** The body's messages, after the batch rules (basic/transports; 2025-03-26 batches). */
function classifyBody(state: SessionEraState, body: unknown): ClassifiedMessage[] {
  const batch = Array.isArray(body);
  const items: unknown[] = batch ? body : [body];
  if (batch && items.length === 0) throw McpError.invalidRequest("Invalid Request: empty batch");
  const maxBatch = state.limits.maxBatch;
  if (batch && items.length > maxBatch) {
    throw McpError.invalidRequest(`Invalid Request: batch longer than ${maxBatch} messages`, { maxBatch });
  }
  return items.map(classifyMessage);
}

/** Run the requests and answer them: JSON when every answer is quick, else an SSE stream. */
function answerSlots(state: SessionEraState, ctx: PostContext, slots: Slot[], batch: boolean): Response | Promise<Response> {
  const { session, host } = ctx;
  const controllers = slots.map(() => new LazyAbort());
  const abortAll = () => {
    const reason = new CancelledError("client went away");
    for (const c of controllers) c.abort(reason);
  };
  const exchange = new PostExchange({
    canStream: ctx.accept.eventStream,
    canJson: ctx.accept.json,
    // A record written before `initialized` was kept has none: initialized (stores.ts).
    clientReady: session?.initialized !== false,
    batch,
    expected: slots.length,
    sessionId: session?.id,
    resumable: state.stateful && primesStreams(ctx.protocolVersion),
    eventLog: true,
    retryMs: state.limits.retryMs,
    keepAliveMs: state.limits.keepAliveMs,
    headers: ctx.headers,
    streams: state.streams,
    pending: state.pending,
    ...(session ? { toSession: (method: string, params: Record<string, unknown>) => state.hub.publish({ kind: "session_notification", sessionId: session.id, method, params }) } : {}),
    abortAll,
    requestIdOf: (index) => {
      const slot = slots[index];
      return slot?.kind === "request" ? slot.message.id : undefined;
    },
    wholeBodies: host.wholeBodies,
    clientGone: host.clientGone,
  });
  slots.forEach((slot, index) => {
    if (slot.kind === "invalid") exchange.answer(index, slot.response);
    else runRequest(state, ctx, slot.message, exchange, index, controllers[index] as LazyAbort);
  });
  // Answered synchronously: nothing is left running, nothing to watch.
  if (exchange.ready) return exchange.ready;
  // A client that drops a plain JSON exchange has nothing to resume: its handlers stop now.
  host.clientGone.addEventListener("abort", abortAll, { once: true });
  return exchange.response.then((response) => {
    // Once streaming, disconnects are the stream's business (grace period, then abandon).
    if (response.headers.get("content-type") === MediaType.EventStream) host.clientGone.removeEventListener("abort", abortAll);
    return response;
  });
}
