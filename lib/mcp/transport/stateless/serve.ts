import { McpError, httpStatusForCode, type JsonRpcRequest } from "../../../jsonrpc";
import type { Acceptable } from "../../../http/accept";
import type { RequestHost } from "../../../http/handle-init";
import type { AuthInfo } from "../../../auth/auth-info";
import { streamLifetimeMs } from "../stream-lifetime";
import { authorizeRequest, mayReadResource } from "../../policy/authorize";
import { mayReachTask } from "../../policy/task-access";
import { budgetCallOf, callerKey, rateLimitExceeded, rateLimitHeaders, tooManyStreams, type RateLimitDecision } from "../../policy/rate-limit";
import { LazyAbort } from "../lazy-abort";
import { PostExchange } from "../post-exchange";
import { listenResponse, type Listener } from "./listen";
import { declaresTasks } from "../../tasks/wire";
import { prepareRound, type Prepared } from "./prepare-round";
import { LISTEN_METHOD, checkModernRequest, servesMethod, type ModernRequestMeta } from "./request-checks";
import { runCall } from "./run-call";
import { taskOwnerOf } from "../../tasks/owner";
import type { StatelessEraOptions } from "./state";
import { MediaType } from "../../protocol/http-headers";

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

/** What one 2026-07-28 request carries from its checks to its answer. */
interface ModernRequest {
  options: StatelessEraOptions;
  message: JsonRpcRequest;
  accept: Acceptable;
  auth: AuthInfo | undefined;
  host: RequestHost;
  meta: ModernRequestMeta;
  caller: string;
  headers: Record<string, string>;
}

/**
 * One 2026-07-28 request after its envelope checks: a call, or a subscriptions/listen stream.
 * Synchronous until something has to be waited for (a remote budget, a requestState, a call that
 * does not answer at once): a quick call on a deployment without Redis returns its Response
 * without a promise (each costs a turn of the microtask queue under Next's async tracking).
 */
export function serveRequest(
  options: StatelessEraOptions,
  request: Request,
  message: JsonRpcRequest,
  accept: Acceptable,
  auth: AuthInfo | undefined,
  host: RequestHost,
): Response | Promise<Response> {
  const meta = checkModernRequest(request, message, options.env.registry);
  const listen = message.method === LISTEN_METHOD;
  if (!servesMethod(message.method)) throw McpError.methodNotFound(message.method);
  authorizeRequest(options.env, message.method, message.params, auth);
  const caller = options.limiter ? callerKey(host.clientAddress, auth) : "";
  const served: ModernRequest = { options, message, accept, auth, host, meta, caller, headers: {} };
  // Every request spends its budget, listen included (opening streams in a loop is a request loop).
  const spending = spendBudget(options, message, caller, served.headers);
  if (spending) return spending.then(() => (listen ? serveListenOf(served) : serveCall(served)));
  return listen ? serveListenOf(served) : serveCall(served);
}

function serveListenOf({ options, message, accept, auth, host, meta, caller }: ModernRequest): Promise<Response> {
  const { tasks } = options.env;
  const taskOwner = taskOwnerOf(auth, host.clientAddress, options.env.info.name);
  const listener: Listener = {
    subject: auth?.subject,
    taskOwner,
    tasksOffered: tasks !== undefined,
    tasks: tasks !== undefined && declaresTasks(meta.clientCapabilities),
    mayRead: (uri) => mayReadResource(options.env, uri, auth),
    mayReachTask: (tool) => mayReachTask(options.env, tool, auth),
    ...(tasks ? { taskLapses: { periodMs: tasks.settings.leaseMs, stillWorking: (ids: readonly string[]) => tasks.stillWorking(ids, taskOwner) } } : {}),
  };
  return serveListen(options, message, accept, caller, listener, host.clientGone, streamLifetimeMs(options.listenMaxLifetimeMs, auth));
}

/** A call: its answers, if the client brings any, then the exchange that runs it. */
function serveCall(served: ModernRequest): Response | Promise<Response> {
  const preparing = prepareRound(served.options.states, served.message, served.auth);
  return preparing instanceof Promise ? preparing.then((prepared) => runExchange(served, prepared)) : runExchange(served, preparing);
}

function runExchange({ options, message, accept, auth, host, meta, caller, headers }: ModernRequest, prepared: Prepared | undefined): Response | Promise<Response> {
  const abort = new LazyAbort();
  const exchange = new PostExchange({
    canStream: accept.eventStream,
    canJson: accept.json,
    // No handshake in 2026-07-28; its questions are input rounds, not this exchange's (run-call.ts).
    clientReady: true,
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
    clientGone: host.clientGone,
  });
  runCall(options, { caller, message, meta, auth, address: host, prepared }, exchange, abort);
  if (exchange.ready) return exchange.ready;
  // A closed connection is the cancellation of this request (2026-07-28 basic/transports).
  const onGone = () => abort.abort(new Error("the client closed the connection"));
  host.clientGone.addEventListener("abort", onGone, { once: true });
  return exchange.response.then((response) => {
    if (response.headers.get("content-type") === MediaType.EventStream) host.clientGone.removeEventListener("abort", onGone);
    return response;
  });
}

/**
 * The request's budget (seed 001 §rate limiting): a 429 when spent, else its RateLimit-* headers.
 * Synchronous without a limiter or with one that answers at once (in memory): awaiting a promise
 * that has nothing to wait for would cost every request a turn of the microtask queue.
 */
function spendBudget(options: StatelessEraOptions, message: JsonRpcRequest, caller: string, headers: Record<string, string>): void | Promise<void> {
  if (!options.limiter) return;
  const checking = options.limiter.check(budgetCallOf(options.env.registry, message.method, message.params, caller));
  if (checking instanceof Promise) return checking.then((decision) => applyDecision(decision, headers));
  applyDecision(checking, headers);
}

function applyDecision(decision: RateLimitDecision | undefined, headers: Record<string, string>): void {
  if (decision && !decision.allowed) throw rateLimitExceeded(decision);
  if (decision) Object.assign(headers, rateLimitHeaders(decision));
}

/** subscriptions/listen: a long-lived stream of server events, holding one of the caller's stream slots. */
async function serveListen(options: StatelessEraOptions, message: JsonRpcRequest, accept: Acceptable, caller: string, listener: Listener, clientGone: AbortSignal, lifetimeMs: number): Promise<Response> {
  if (!accept.eventStream) throw McpError.invalidRequest("Not Acceptable: subscriptions/listen answers with text/event-stream", undefined, 406);
  const slot = options.limiter ? await options.limiter.openStream(caller) : undefined;
  if (options.limiter && !slot) throw tooManyStreams(options.limiter.maxStreams);
  try {
    const complete = (result: Record<string, unknown>) => options.results.complete(message.method, result);
    return listenResponse(message.id, message.params ?? {}, options.hub, options.keepAliveMs, lifetimeMs, listener, complete, () => slot?.release(), clientGone);
  } catch (thrown) {
    slot?.release();
    throw thrown;
  }
}
