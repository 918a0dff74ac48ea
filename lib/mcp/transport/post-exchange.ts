import { ErrorCode, McpError, envelopeBytes, envelopeStream, failure, serializedBytesOf, type JsonRpcId, type JsonRpcResponse } from "../../jsonrpc";
import type { CallChannel } from "../runtime/handler-context";
import type { ServerRequestMethod } from "../runtime/client-requests";
import { describeCapability, type RequiredCapability } from "../protocol/client-capabilities";
import { wholeBodyResponse } from "../../http/whole-body";
import { SSE_HEADERS } from "./sse";
import { MediaType } from "../protocol/http-headers";
import { sseBody, type LogicalStream, type StreamTable } from "./resumable-streams";
import type { PendingRequests } from "./pending-requests";
import type { LazyAbort } from "./lazy-abort";

/**
 * The JSON body of one response: a preserialized result (tools/list pages) is spliced in, as bytes
 * for a host that writes them itself (`wholeBodies`, one socket write), else as a stream that hands
 * on the page's shared bytes instead of copying them per request (preserialized.ts).
 */
function responseBody(response: JsonRpcResponse, wholeBodies: boolean): string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  const page = "result" in response ? serializedBytesOf(response.result) : undefined;
  if (page === undefined) return JSON.stringify(response);
  return wholeBodies ? (envelopeBytes(response.id, page) as Uint8Array<ArrayBuffer>) : envelopeStream(response.id, page);
}

export interface ExchangeOptions {
  /** The client's Accept allows text/event-stream. */
  canStream: boolean;
  /** The client's Accept allows application/json (else the answer is always a stream). */
  canJson: boolean;
  /**
   * The client may be asked things: false in a session whose client has not sent
   * notifications/initialized yet (basic/lifecycle §initialization: no requests but pings and
   * logging before it). Always true in 2026-07-28, which has no handshake.
   */
  clientReady: boolean;
  /** A JSON-RPC batch: the JSON answer is an array. */
  batch: boolean;
  /** How many answers (responses or suppressed) complete the exchange. */
  expected: number;
  sessionId: string | undefined;
  /** Send a priming event and honour closeStream (2025-11-25 resumability). */
  resumable: boolean;
  /** Give events ids and keep them for Last-Event-ID (the session era); false in 2026-07-28. */
  eventLog: boolean;
  /**
   * HTTP status of a single JSON error answer. The session era answers 200 (the exchange worked,
   * the call failed); 2026-07-28 maps codes to statuses (404 for -32601, 400 for -32602 …).
   */
  errorStatus?: (code: number) => number;
  retryMs: number;
  keepAliveMs: number;
  /** Aborts when the client goes away (RequestHost.clientGone): a stream it dropped before the headers lets go at once. */
  clientGone?: AbortSignal;
  /**
   * The answer's headers so far (session id, RateLimit-*), lower- or mixed-case names each set
   * once; the exchange adds its content type. A plain record, not a Headers object: the Response
   * copies its init either way, and a Headers object costs a build and a sorted copy more.
   */
  headers: Record<string, string>;
  streams: StreamTable;
  pending: PendingRequests;
  /**
   * Send a notification where the session's messages go (its GET stream, on any instance), for
   * one this exchange's stream can no longer carry; undefined without a session.
   */
  toSession?: (method: string, params: Record<string, unknown>) => void;
  /** Abort every handler of this exchange (client gone for good). */
  abortAll: () => void;
  /**
   * The id of the request in slot `index` (undefined: the slot was answered at once). With an
   * event log, a stream abandoned after the resume grace period answers each request still
   * running with an error, so a later resume ends with its response (abandonedError below).
   */
  requestIdOf?: (index: number) => JsonRpcId | undefined;
  /** The host writes JSON answers from wholeBodyOf() (HandleInit.wholeBodies): no body stream. */
  wholeBodies?: boolean;
}

/**
 * One POST carrying requests, answered lazily: if every response is ready before the handlers emit
 * anything else, the answer is plain `application/json`; the first notification or server → client
 * request upgrades it to an SSE stream that carries those messages and then the responses
 * (basic/transports §sending messages to the server). Quick calls stay cheap; long ones stream.
 */
export class PostExchange implements ClientAsker {
  /** Set as soon as the answer is decided (possibly synchronously, before anyone awaits). */
  ready: Response | undefined;
  private waiting: { promise: Promise<Response>; resolve: (response: Response) => void } | undefined;
  private readonly answers: (JsonRpcResponse | null)[] = [];
  private answered = 0;
  private stream: LogicalStream | undefined;
  private settled = false;
  /** The client did not come back to this exchange's stream within the resume grace period. */
  private abandoned = false;
  /** Messages emitted before the upgrade, in order. */
  private readonly backlog: string[] = [];
  /** A lone request's authorization refusal, raised by its handler: the JSON answer's status and challenge. */
  private refusal: { status: number; headers: Readonly<Record<string, string>> | undefined } | undefined;

  constructor(private readonly options: ExchangeOptions) {
    if (!options.canJson) this.upgrade();
  }

  /** The answer for request slot `index`; `null` when it must not be answered (cancelled). */
  answer(index: number, response: JsonRpcResponse | null): void {
    this.answers[index] = response;
    this.answered++;
    if (this.stream) {
      if (response) this.stream.write(JSON.stringify(response));
    }
    if (this.answered < this.options.expected) return;
    if (this.stream) {
      this.stream.finish();
      return;
    }
    this.settleJson();
  }

  /**
   * A handler refused its caller the way the transport refuses before dispatch (a task whose
   * tool needs scopes the token lacks: 403 insufficient_scope with its WWW-Authenticate
   * challenge, basic/authorization §runtime insufficient scope). The refusal shapes the HTTP
   * answer of a lone request answered as JSON; in a batch or on a stream it is the error alone.
   */
  refuse(error: McpError): void {
    const status = error.httpStatus;
    if (error.code !== ErrorCode.Unauthorized || (status !== 401 && status !== 403) || this.options.expected !== 1 || this.options.batch) return;
    this.refusal = { status, headers: error.headers };
  }

  /** The channel of one request; `asker` decides how questions reach the client (per era). */
  channelFor(abort: LazyAbort, asker: ClientAsker = this): CallChannel {
    return new ExchangeChannel(this, abort, asker);
  }

  /** A notification related to a call; dropped when the client accepts no stream or the call is over. */
  notify(abort: LazyAbort, method: string, params: Record<string, unknown>): void {
    if (!this.options.canStream || abort.aborted) return;
    this.emit(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Session era: a server → client request on this exchange's stream; the answer arrives as another POST. */
  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal, _key: string | undefined, call: LazyAbort): Promise<unknown> {
    const refused = this.cannotAsk(method);
    if (refused) return Promise.reject(refused);
    const { id, answer } = this.options.pending.open(this.options.sessionId, call, signal, (withdrawn, reason) => this.cancelQuestion(withdrawn, reason));
    this.emit(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer;
  }

  /**
   * The server stopped waiting for a question (no answer in time, or the call that asked it was
   * cancelled or ended): tell the client to drop it (basic/utilities/cancellation). On the stream
   * that asked it while the client may still read it there (its call is not answered yet, so it
   * has not finished); once the client gave that stream up, where the session's messages go.
   */
  private cancelQuestion(requestId: string, reason: string): void {
    const message = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } };
    if (!this.abandoned && !this.stream?.finished) this.emit(JSON.stringify(message));
    else this.options.toSession?.(message.method, message.params);
  }

  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error {
    // An ordinary failure: inside a tool it becomes an isError result the model can read.
    return new McpError(-32600, `The client did not declare the ${describeCapability(required)} needed for ${method}`);
  }

  cannotAsk(method: ServerRequestMethod): Error | undefined {
    if (!this.options.clientReady) {
      return new McpError(-32600, `${method} cannot be sent before the client's notifications/initialized (basic/lifecycle §initialization)`);
    }
    // The question travels on this POST's answer: one that must be JSON cannot carry it (basic/transports).
    if (!this.options.canStream) return new McpError(-32600, `${method} needs a response stream: send Accept: text/event-stream`);
    return undefined;
  }

  closeStream(): void {
    if (!this.options.resumable || !this.options.canStream) return;
    this.upgrade();
    this.stream?.disconnect();
  }

  private emit(message: string): void {
    if (!this.stream) {
      this.backlog.push(message);
      this.upgrade();
      return;
    }
    this.stream.write(message);
  }

  private upgrade(): void {
    if (this.stream || this.settled) return;
    this.settled = true;
    const { streams, sessionId, resumable, retryMs, keepAliveMs, headers, abortAll } = this.options;
    const stream = streams.open(sessionId, this.options.eventLog, this.requestIds());
    this.stream = stream;
    stream.onAbandoned(() => {
      // Before the answers: the calls' withdrawn questions go to the session's GET stream.
      this.abandoned = true;
      abortAll();
      this.answerAbandoned(stream);
    });
    // ReadableStream's start() runs now, so the connection is attached (and primed) before any event.
    const body = sseBody(
      (sink) => stream.attach(sink, 0, resumable ? { retryMs } : undefined),
      (sink) => stream.detach(sink),
      { keepAliveMs, clientGone: this.options.clientGone },
    );
    // Answers that completed before the upgrade, then the messages that caused it.
    for (const a of this.answers) if (a) stream.write(JSON.stringify(a));
    for (const m of this.backlog) stream.write(m);
    this.backlog.length = 0;
    Object.assign(headers, SSE_HEADERS);
    const response = new Response(body, { status: 200, headers });
    // The priming event names the stream: it goes out only once other instances can resume it.
    if (stream.logged) void stream.logged.then(() => this.settleResponse(response));
    else this.settleResponse(response);
  }

  /** The ids of this exchange's requests, in order (notifications and unreadable ids have none). */
  private requestIds(): JsonRpcId[] {
    const idOf = this.options.requestIdOf;
    const ids: JsonRpcId[] = [];
    if (!idOf) return ids;
    for (let index = 0; index < this.options.expected; index++) {
      const id = idOf(index);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /**
   * The client did not come back within the grace period: each request still running is given
   * up (the grace-then-cancel of basic/transports §sending messages 6: disconnection alone is
   * not a cancellation), and answered with an error written to the stream's log before it ends —
   * "the server SHOULD eventually include a JSON-RPC response" — so a client that resumes within
   * the retention time reads why, and its stream ends properly. A request the client cancelled
   * (answered null) gets nothing (cancellation §behavior). Streams without a log (2026-07-28)
   * end with their connection, and closing it is the cancellation there.
   */
  private answerAbandoned(stream: LogicalStream): void {
    const idOf = this.options.requestIdOf;
    if (!idOf || !this.options.eventLog) return;
    for (let index = 0; index < this.options.expected; index++) {
      if (this.answers[index] !== undefined) continue;
      const id = idOf(index);
      if (id !== undefined) stream.write(JSON.stringify(failure(id, abandonedError(stream.resumeGraceMs))));
    }
  }

  /** The answer, once decided. The promise exists only if someone has to wait for it. */
  get response(): Promise<Response> {
    if (this.ready) return Promise.resolve(this.ready);
    if (!this.waiting) {
      let resolve!: (response: Response) => void;
      const promise = new Promise<Response>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  private settleResponse(response: Response): void {
    this.ready = response;
    this.waiting?.resolve(response);
  }

  private settleJson(): void {
    if (this.settled) return;
    this.settled = true;
    const { headers, batch } = this.options;
    // A single request (every exchange but a batch) needs no filtered copy of its one answer.
    const present = batch ? this.answers.filter((a): a is JsonRpcResponse => a !== null && a !== undefined) : undefined;
    const first = present ? present[0] : (this.answers[0] ?? undefined);
    if (first === undefined) {
      // Every request was cancelled: no response may be sent (cancellation §behavior), yet a POST
      // carrying requests must be answered with JSON or SSE (transports): an empty, closed stream.
      Object.assign(headers, SSE_HEADERS);
      this.settleResponse(new Response("", { status: 200, headers }));
      return;
    }
    headers["content-type"] = MediaType.Json;
    const wholeBodies = this.options.wholeBodies === true;
    const body = present ? JSON.stringify(present) : responseBody(first, wholeBodies);
    const refusal = this.refusal && "error" in first ? this.refusal : undefined;
    if (refusal?.headers) Object.assign(headers, refusal.headers);
    const status = refusal ? refusal.status : !batch && "error" in first && this.options.errorStatus ? this.options.errorStatus(first.error.code) : 200;
    this.settleResponse(body instanceof ReadableStream ? new Response(body, { status, headers }) : wholeBodyResponse(body, { status, headers }, wholeBodies));
  }
}

/**
 * The error of a request given up because its client did not reconnect. -32603 InternalError:
 * the request was valid and the server stopped it, a server-side failure as JSON-RPC 2.0 §5.1
 * names them; MCP defines no timeout code, and the SDKs' RequestTimeout (-32001) is a
 * client-side code that this server already uses for Unauthorized (lib/jsonrpc/error-codes.ts).
 */
function abandonedError(graceMs: number): McpError {
  return McpError.internal(`The request was cancelled: the client did not reconnect to its stream within ${graceMs} ms`);
}

/** How a handler's questions (elicitation, sampling, roots) reach the client. */
export interface ClientAsker {
  /** `call`: the asking call's abort switch, which names it (its questions end with it). */
  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined, call: LazyAbort): Promise<unknown>;
  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error;
  cannotAsk(method: ServerRequestMethod): Error | undefined;
}

/** The CallChannel of one request in an exchange (a class: no closures allocated per call). */
class ExchangeChannel implements CallChannel {
  constructor(
    private readonly exchange: PostExchange,
    private readonly abort: LazyAbort,
    private readonly asker: ClientAsker,
  ) {}

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    this.exchange.notify(this.abort, method, params);
  }

  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<unknown> {
    return this.asker.request(method, params, signal, key, this.abort);
  }

  missingCapability(required: RequiredCapability, method: ServerRequestMethod): Error {
    return this.asker.missingCapability(required, method);
  }

  cannotAsk(method: ServerRequestMethod): Error | undefined {
    return this.asker.cannotAsk(method);
  }

  closeStream(): void {
    this.exchange.closeStream();
  }
}
