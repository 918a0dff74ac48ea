import { McpError } from "../../../jsonrpc";
import { parseAccept } from "../../../http/accept";
import type { RequestHost } from "../../../http/handle-init";
import type { AuthInfo } from "../../../auth/auth-info";
import { callerKey, spendOne, tooManyStreams, type StreamSlot } from "../../policy/rate-limit";
import { Header, NamedEvents, ResponseHeader } from "../../protocol/http-headers";
import { primesStreams } from "../../protocol/protocol-versions";
import { parseEventId, sseBody, type LogicalStream, type SseBodyOptions, type StreamSink } from "../resumable-streams";
import type { SessionRecord } from "../session-store";
import { SSE_HEADERS, encodeSseComment } from "../sse";
import { audienceOf } from "../tool-events";
import { resolveSession, resolveVersion } from "./lookup";
import { keepSessionWhileOpen } from "./session-upkeep";
import { refuseWhenShuttingDown } from "../stream-clock";
import type { SessionEraState } from "./state";
import { streamLifetimeMs } from "../stream-lifetime";

/** The GET stream's first named event (seed 001). */
const CONNECTED = JSON.stringify({ status: "ready" });

/** GET /api/mcp?events=named (http-headers.ts): the caller asked for seed 001's named events. */
function wantsNamedEvents(request: Request): boolean {
  return request.url.includes("?") && new URL(request.url).searchParams.get(NamedEvents.param) === NamedEvents.value;
}

/** What GET (and HEAD) admit before a stream opens: the session, its version, the answer's header fields. */
interface AdmittedGet {
  session: SessionRecord;
  protocolVersion: string;
  headers: Headers;
  caller: string;
}

/**
 * Everything GET decides before it opens or resumes a stream: the refusals (405 stateless, 406,
 * the session's 400/404, the version, the budget's 429) and the header fields of a 200.
 */
async function admitGet(state: SessionEraState, request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<AdmittedGet> {
  if (!state.stateful) {
    throw McpError.invalidRequest("Method Not Allowed: this server runs stateless and offers no GET stream", undefined, 405);
  }
  const accept = parseAccept(request.headers.get(Header.Accept));
  if (!accept.eventStream || request.headers.get(Header.Accept) === null) {
    throw McpError.invalidRequest(`Not Acceptable: ${request.method} needs Accept: text/event-stream`, undefined, 406);
  }
  const found = resolveSession(state, request, auth);
  const session = found instanceof Promise ? await found : found;
  const protocolVersion = resolveVersion(request, session);
  if (!session) throw McpError.internal();
  const headers = new Headers(SSE_HEADERS);
  headers.set(ResponseHeader.SessionId, session.id);
  const caller = callerKey(host.clientAddress, auth);
  if (state.limiter) await spendOne(state.limiter, { method: request.method, caller });
  return { session, protocolVersion, headers, caller };
}

/**
 * GET (basic/transports §listening for messages from the server): the session's standalone
 * stream, or — with Last-Event-ID — the resumption of a stream this session had open.
 */
export async function handleGet(state: SessionEraState, request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
  const { session, protocolVersion, headers, caller } = await admitGet(state, request, auth, host);
  // Each open GET connection holds one of the caller's stream slots until it ends.
  const slot = await openStreamSlot(state, caller);
  const connection: SseBodyOptions = {
    keepAliveMs: state.limits.keepAliveMs,
    maxLifetimeMs: streamLifetimeMs(state.limits.streamMaxLifetimeMs, auth),
    onEnd: () => slot?.release(),
    // A client gone before the headers: its stream is let go, and its slot, at once.
    clientGone: host.clientGone,
  };
  try {
    const lastEventId = request.headers.get(Header.LastEventId);
    const body =
      lastEventId !== null
        ? await resumeStream(state, request, session, protocolVersion, lastEventId, connection)
        : await openStandaloneStream(state, request, session, protocolVersion, connection);
    return new Response(body, { status: 200, headers });
  } catch (thrown) {
    slot?.release();
    throw thrown;
  }
}

/**
 * HEAD (RFC 9110 §9.3.2): the status and header fields GET would answer, without the content.
 * No stream is opened or resumed: one opened would carry the session's messages in place of the
 * stream that does, and a stream's events are the content a HEAD does not get.
 */
export async function handleHead(state: SessionEraState, request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
  const { session, headers, caller } = await admitGet(state, request, auth, host);
  // GET's 429 when the caller's stream slots are all open, without taking one.
  if (state.limiter && !(await state.limiter.streamSlotFree(caller))) throw tooManyStreams(state.limiter.maxStreams);
  // Then, as GET, its 400 for a Last-Event-ID it cannot resume from.
  const lastEventId = request.headers.get(Header.LastEventId);
  if (lastEventId !== null) await checkResumable(state, session, lastEventId);
  return new Response(null, { status: 200, headers });
}

/** A stream slot for the caller, or the 429 that says all of them are open. */
async function openStreamSlot(state: SessionEraState, caller: string): Promise<StreamSlot | undefined> {
  const limiter = state.limiter;
  if (!limiter) return undefined;
  const slot = await limiter.openStream(caller);
  if (!slot) throw tooManyStreams(limiter.maxStreams);
  return slot;
}

/**
 * 400, not 404: the session is alive, and a 404 to a request carrying its id tells the client to
 * start a new one (basic/transports §session management, 4). The stream alone cannot be resumed.
 */
const notFound = () =>
  McpError.invalidRequest("Cannot resume: the Last-Event-ID is unknown or expired (the session is still valid: open the stream again without Last-Event-ID)", undefined, 400);

/**
 * Where a Last-Event-ID points: its stream and position, with the stream itself when this instance
 * holds it (then checked here: an id this stream never issued is as unknown as another session's).
 */
function resumePoint(state: SessionEraState, session: SessionRecord, lastEventId: string): { streamId: string; afterSeq: number; stream: LogicalStream | undefined } {
  const parsed = parseEventId(lastEventId);
  if (!parsed) throw notFound();
  const stream = state.streams.get(parsed.streamId);
  if (stream && (stream.sessionId !== session.id || !stream.issued(parsed.afterSeq) || !stream.keepsAfter(parsed.afterSeq))) throw notFound();
  return { ...parsed, stream };
}

/** What resumeStream refuses, checked without resuming (HEAD). */
async function checkResumable(state: SessionEraState, session: SessionRecord, lastEventId: string): Promise<void> {
  const { streamId, afterSeq, stream } = resumePoint(state, session, lastEventId);
  if (stream) return;
  if (!state.remote || !(await state.remote.resumable(streamId, afterSeq, session.id))) throw notFound();
}

/** Last-Event-ID (basic/transports §resumability): replay what followed it, on this instance or another. */
async function resumeStream(
  state: SessionEraState,
  request: Request,
  session: SessionRecord,
  protocolVersion: string,
  lastEventId: string,
  connection: SseBodyOptions,
): Promise<ReadableStream<Uint8Array>> {
  const { streamId, afterSeq, stream } = resumePoint(state, session, lastEventId);
  if (stream) {
    // A GET stream that does not carry the session's messages now (given up while its client was
    // away longer than the grace period, or another stream of the session carries them): what it
    // kept after the id, then a new GET stream, the session's newest, which carries them from now
    // on. Replayed and closed, as a finished request's stream is, its client came back every
    // `retry` to the same end and heard nothing more (outside audit, 2026-11-28); resumed as it
    // was, it stayed silent behind the stream that carries them (outside review). The spec's
    // resume goes on "from that point". Its old connection, if any, ends: this one takes its
    // place, as attach() does for the stream that carries them.
    if (state.standalone.superseded(stream)) {
      stream.finish();
      return openStandaloneStream(state, request, session, protocolVersion, connection, (sink) => stream.replayTo(sink, afterSeq));
    }
    return sseBody(
      (sink) => {
        // Headers go out now, not with the next event (which may be a while).
        sink.write(encodeSseComment("resumed"));
        stream.attach(sink, afterSeq);
      },
      (sink) => stream.detach(sink),
      connection,
    );
  }
  // Not a stream of this instance: perhaps of another one (the shared log knows). An ended GET
  // stream is replayed and followed by a new one, as above: replayed and closed, a client that
  // keeps its Last-Event-ID (EventSource) came back to the same end for good (outside review).
  const ended = state.remote ? await state.remote.endedStandalone(streamId, afterSeq, session.id) : undefined;
  if (ended) return openStandaloneStream(state, request, session, protocolVersion, connection, ended);
  const body = state.remote ? await state.remote.resume(streamId, afterSeq, session.id, connection) : undefined;
  if (!body) throw notFound();
  return body;
}

/** A new standalone stream: where the session hears of list changes, updates and (asked for) tool runs. */
function openStandaloneStream(
  state: SessionEraState,
  request: Request,
  session: SessionRecord,
  protocolVersion: string,
  connection: SseBodyOptions,
  replayFirst?: (sink: StreamSink) => void,
): Promise<ReadableStream<Uint8Array>> {
  refuseWhenShuttingDown();
  const stream = state.streams.open(session.id);
  const named = wantsNamedEvents(request);
  // Only a stream that asked hears of tool runs (tool-events.ts delivers by audience).
  state.standalone.set(session.id, stream, named ? audienceOf(session.subject, session.id) : undefined);
  keepSessionWhileOpen(state, session.id, stream);
  const prime = primesStreams(protocolVersion) ? { retryMs: state.limits.retryMs } : undefined;
  const pingMs = state.limits.pingMs;
  const body = sseBody(
    (sink) => {
      replayFirst?.(sink);
      // Before 2025-11-25 nothing primes the stream: a comment sends the headers now, not with
      // the first event or ping (a client waits for the 200 and its Content-Type, basic/transports).
      if (!prime && !named) sink.write(encodeSseComment("open"));
      stream.attach(sink, 0, prime);
      // Seed 001's named events, on request: ready at once, then a named ping every 30 s.
      if (named) stream.write(CONNECTED, "connected");
    },
    (sink) => stream.detach(sink),
    // Everyone else gets the ping as a comment, which every SSE client ignores.
    named ? { ...connection, keepAliveMs: 0, pingMs } : { ...connection, keepAliveMs: pingMs },
  );
  // A standalone stream has no work to abandon: once the grace period passes it is simply over
  // (and leaves the table). Its priming event names it: it goes out only once other instances
  // can resume it, which is also when they hear of it (standalone-streams.ts).
  return stream.logged ? stream.logged.then(() => body) : Promise.resolve(body);
}
