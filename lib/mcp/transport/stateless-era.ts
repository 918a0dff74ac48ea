import { authorizeRequest } from "../policy/authorize";
import { audienceOf, type ToolEvents } from "./tool-events";
import { admitter } from "./admit";
import { callerKey, rateLimitExceeded, rateLimitHeaders, spendOne, tooManyStreams, type RequestLimiter } from "../policy/rate-limit";
import {
  McpError,
  classifyMessage,
  failure,
  httpStatusForCode,
  success,
  toMcpError,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../jsonrpc";
import type { Acceptable } from "../../http/accept";
import type { RequestHost } from "../../http/handle-init";
import { errorResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import type { CallScope } from "../runtime/handler-context";
import { STATELESS_ERA_METHODS, dispatch, type MethodEnv } from "../methods";
import type { NotificationHub } from "../cluster/notification-hub";
import { InputRequired, ProtocolError } from "../protocol/protocol-error";
import { logUnexpected, requestLogEntry, type RequestLogger } from "../runtime/request-log";
import { LazyAbort } from "./lazy-abort";
import { PostExchange, type ClientAsker } from "./post-exchange";
import type { PendingRequests } from "./pending-requests";
import { readRequestMeta } from "./request-meta";
import { settle } from "./settle";
import type { StreamTable } from "./resumable-streams";
import { InputRound } from "./stateless/input-round";
import { listenResponse } from "./stateless/listen";
import type { ModernResults } from "./stateless/modern-results";
import { checkModernRequest, type ModernRequestMeta } from "./stateless/request-checks";
import type { RequestBinding, RequestStateCodec } from "./stateless/request-state";
import { ownEntry } from "../protocol/own-property";

export interface StatelessEraOptions {
  env: MethodEnv;
  hub: NotificationHub;
  streams: StreamTable;
  pending: PendingRequests;
  states: RequestStateCodec;
  results: ModernResults;
  keepAliveMs: number;
  listenMaxLifetimeMs: number;
  log: RequestLogger | undefined;
  limiter?: RequestLimiter;
  toolEvents: ToolEvents;
}

/**
 * HTTP status of a JSON-RPC error from a dispatched call. 2026-07-28 transports assign 400 (bad
 * params, header mismatch, missing capability, unsupported version) and 404 (unknown method);
 * any other failure of a call that ran is still a well-formed JSON-RPC answer, sent with 200 so
 * clients read the error instead of a bare HTTP failure.
 */
function statusOfCallError(code: number): number {
  const status = httpStatusForCode(code);
  return status === 400 || status === 404 ? status : 200;
}

/** The run state of a request that may ask the client: its round and what a requestState binds. */
interface Prepared {
  round: InputRound;
  binding: RequestBinding;
}

/** Requests that may answer with an InputRequiredResult (basic/patterns/mrtr). */
const MAY_ASK: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** Asker for requests that may not pause for input: asking is a server bug, reported as such. */
const CANNOT_ASK: ClientAsker = {
  request: (method) => Promise.reject(new ProtocolError(-32603, `${method} cannot be asked during this request`)),
  missingCapability: (capability) => new ProtocolError(-32603, `The ${capability} capability cannot be used during this request`),
};

/**
 * The 2026-07-28 POST (basic/transports, stateless): one JSON-RPC request per POST, every fact
 * about the caller in `_meta`, nothing kept between requests but what the client carries back
 * (requestState). Served by the same method handlers as the session era.
 */
export function createStatelessEra(options: StatelessEraOptions) {
  const { env, results, states } = options;

  /** Synchronous unless a requestState must be verified (the spent-nonce store may be remote). */
  function prepareRound(
    message: JsonRpcRequest,
    auth: AuthInfo | undefined,
  ): Prepared | undefined | Promise<Prepared | undefined> {
    const source = ownEntry(MAY_ASK, message.method);
    if (!source) return undefined;
    const params = message.params ?? {};
    const binding: RequestBinding = {
      method: message.method,
      target: typeof params[source] === "string" ? (params[source] as string) : "",
      args: message.method === "resources/read" ? null : (params.arguments ?? {}),
      subject: auth?.subject,
    };
    const responses = params.inputResponses;
    if (responses !== undefined && responses !== null && (typeof responses !== "object" || Array.isArray(responses))) {
      throw new ProtocolError(-32602, "Invalid params: inputResponses must be an object keyed by input request");
    }
    // Unknown keys are ignored by construction: only the questions the handler asks are looked up.
    const given = (responses as Record<string, unknown> | null | undefined) ?? {};
    const state = params.requestState;
    if (state === undefined) return { round: new InputRound(given), binding };
    if (typeof state !== "string") throw new ProtocolError(-32602, "Invalid params: requestState must be a string");
    return states.verify(state, binding).then((checked) => {
      if (!checked.ok) throw new ProtocolError(-32602, `Invalid requestState: ${checked.reason}`);
      return { round: new InputRound({ ...checked.answers, ...given }), binding };
    });
  }

  function run(
    caller: string,
    message: JsonRpcRequest,
    meta: ModernRequestMeta,
    auth: AuthInfo | undefined,
    prepared: Prepared | undefined,
    exchange: PostExchange,
    abort: LazyAbort,
  ): void {
    const started = options.log ? performance.now() : 0;
    // A signed-in caller's tool runs reach its GET streams as named events (tool-events.ts).
    const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
    const audience = tool ? audienceOf(auth?.subject, undefined) : undefined;
    const events = tool && options.toolEvents.wanted(audience) ? { tool, audience } : undefined;
    const finish = (response: JsonRpcResponse) => {
      if (options.log) options.log(requestLogEntry(message, response, { started, cancelled: abort.aborted, subject: auth?.subject }));
      if (events && !abort.aborted) options.toolEvents.finished(events.audience, events.tool, response);
      // Closing the stream cancelled the request: nothing more is sent for it (basic/transports).
      exchange.answer(0, abort.aborted ? null : response);
    };
    const askFor = () =>
      prepared && prepared.round.needsInput
        ? success(message.id, results.inputRequired(prepared.round.missing, states.issue(prepared.binding, prepared.round.used)))
        : undefined;
    const done = (result: Record<string, unknown>) => finish(askFor() ?? success(message.id, results.complete(message.method, result)));
    const fail = (thrown: unknown) => {
      const paused = thrown instanceof InputRequired ? askFor() : undefined;
      if (paused) return finish(paused);
      if (!(thrown instanceof McpError)) logUnexpected(message.method, thrown);
      finish(failure(message.id, results.error(toMcpError(thrown))));
    };
    settle(() => {
      const scope: CallScope = {
        requestId: message.id,
        get signal() {
          return abort.signal;
        },
        get aborted() {
          return abort.aborted;
        },
        protocolVersion: meta.protocolVersion,
        sessionId: undefined,
        auth,
        meta: readRequestMeta(message.params),
        clientCapabilities: meta.clientCapabilities,
        logThreshold: meta.logThreshold,
        channel: exchange.channelFor(abort, prepared?.round ?? CANNOT_ASK),
        ...(events ? { onProgress: (progress: number, total: number | undefined) => options.toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
      };
      const admit = message.method === "tools/batch" ? admitter(env, options.limiter, caller, auth) : undefined;
      return dispatch(env, message.method, { params: message.params ?? {}, scope, session: undefined, ...(admit ? { admit } : {}) }, STATELESS_ERA_METHODS);
    }, done, fail);
  }

  async function serve(request: Request, message: JsonRpcRequest, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    const meta = checkModernRequest(request, message, env.registry);
    const listen = message.method === "subscriptions/listen";
    if (!listen && !Object.hasOwn(STATELESS_ERA_METHODS, message.method)) throw McpError.methodNotFound(message.method);
    authorizeRequest(env, message.method, message.params, auth);
    const caller = options.limiter ? callerKey(host.clientAddress, auth) : "";
    const headers = new Headers();
    if (options.limiter) {
      // Every request spends its budget, listen included (opening streams in a loop is a request loop).
      const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
      const checking = options.limiter.check({ method: message.method, ...(tool ? { tool } : {}), caller });
      const decision = checking instanceof Promise ? await checking : checking;
      if (decision && !decision.allowed) throw rateLimitExceeded(decision);
      if (decision) for (const [k, v] of Object.entries(rateLimitHeaders(decision))) headers.set(k, v);
    }
    if (listen) {
      if (!accept.eventStream) throw McpError.invalidRequest("Not Acceptable: subscriptions/listen answers with text/event-stream", undefined, 406);
      // A listen stream holds one of the caller's stream slots until it ends.
      const slot = options.limiter ? await options.limiter.openStream(caller) : undefined;
      if (options.limiter && !slot) throw tooManyStreams(options.limiter.maxStreams);
      try {
        return listenResponse(message.id, message.params ?? {}, options.hub, options.keepAliveMs, options.listenMaxLifetimeMs, () => slot?.release());
      } catch (thrown) {
        slot?.release();
        throw thrown;
      }
    }
    const preparing = prepareRound(message, auth);
    const prepared = preparing instanceof Promise ? await preparing : preparing;

    const abort = new LazyAbort();
    const exchange = new PostExchange({
      canStream: accept.eventStream,
      canJson: accept.json,
      batch: false,
      expected: 1,
      sessionId: undefined,
      resumable: false,
      eventLog: false,
      errorStatus: statusOfCallError,
      retryMs: 0,
      keepAliveMs: options.keepAliveMs,
      headers,
      streams: options.streams,
      pending: options.pending,
      abortAll: () => abort.abort(new Error("the client closed the stream")),
      wholeBodies: host.wholeBodies,
    });
    run(caller, message, meta, auth, prepared, exchange, abort);
    if (exchange.ready) return exchange.ready;
    // A closed connection is the cancellation of this request (2026-07-28 basic/transports).
    const onGone = () => abort.abort(new Error("the client closed the connection"));
    host.clientGone.addEventListener("abort", onGone, { once: true });
    const response = await exchange.response;
    if (response.headers.get("content-type") === "text/event-stream") host.clientGone.removeEventListener("abort", onGone);
    return response;
  }

  /** A parsed POST body of the 2026-07-28 era. Every refusal echoes the request id where it can. */
  async function post(request: Request, body: unknown, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
    if (Array.isArray(body)) throw McpError.invalidRequest("Invalid Request: JSON-RPC batches are not part of protocol version 2026-07-28");
    const classified = classifyMessage(body);
    if (classified.kind === "invalid") {
      return errorResponse(new McpError(classified.error.code, classified.error.message, classified.error.data), classified.id);
    }
    if (classified.kind === "response") {
      throw McpError.invalidRequest("Invalid Request: a 2026-07-28 server sends no requests, so there is nothing to answer");
    }
    // Notifications: accepted, never answered (none is defined client → server over HTTP) — but
    // counted like any request, or a loop of them would cost the server and nothing to the caller.
    if (classified.kind === "notification") {
      if (options.limiter) await spendOne(options.limiter, { method: classified.message.method, caller: callerKey(host.clientAddress, auth) });
      return new Response(null, { status: 202 });
    }
    const message = classified.message;
    try {
      return await serve(request, message, accept, auth, host);
    } catch (thrown) {
      if (!(thrown instanceof McpError)) logUnexpected(message.method, thrown);
      return errorResponse(results.error(toMcpError(thrown)), message.id);
    }
  }

  return { post };
}
