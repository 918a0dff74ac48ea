import { McpError, failure, success, toMcpError, type JsonRpcRequest, type JsonRpcResponse } from "../../../jsonrpc";
import type { Acceptable } from "../../../http/accept";
import type { RequestHost } from "../../../http/handle-init";
import type { AuthInfo } from "../../../auth/auth-info";
import { dispatch } from "../../methods";
import { callerKey } from "../../policy/rate-limit";
import { logUnexpected, requestLogEntry } from "../../runtime/request-log";
import { admitter } from "../admit";
import { callScopeOf } from "../call-scope";
import { CancelledError } from "../in-flight";
import type { LazyAbort } from "../lazy-abort";
import type { PostExchange } from "../post-exchange";
import type { SessionRecord } from "../session-store";
import { settle } from "../settle";
import { audienceOf } from "../tool-events";
import { StoredSessionControl } from "./session-control";
import { callerScope, type SessionEraState } from "./state";

/** Context of one POST after the transport checks: who, which session, which version. */
export interface PostContext {
  request: Request;
  host: RequestHost;
  accept: Acceptable;
  auth: AuthInfo | undefined;
  session: SessionRecord | undefined;
  protocolVersion: string;
  headers: Headers;
}

/**
 * Dispatch one request into its exchange slot. Synchronous methods answer before this returns,
 * so a quick call never waits on a promise; asynchronous ones answer when they settle.
 */
export function runRequest(
  state: SessionEraState,
  ctx: PostContext,
  message: JsonRpcRequest,
  exchange: PostExchange,
  index: number,
  controller: LazyAbort,
): void {
  const { log, toolEvents } = state;
  const started = log ? performance.now() : 0;
  const done = state.inFlight.start(callerScope(ctx.session, ctx.auth), message.id, controller);
  // A tool run's named events for its audience's GET streams (tool-events.ts), when anyone may listen.
  const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
  const audience = tool ? audienceOf(ctx.auth?.subject, ctx.session?.id) : undefined;
  const events = tool && toolEvents.wanted(audience) ? { tool, audience } : undefined;
  const finish = (response: JsonRpcResponse) => {
    done();
    const cancelled = controller.reason instanceof CancelledError;
    if (log) log(requestLogEntry(message, response, { started, cancelled, session: ctx.session?.id, subject: ctx.auth?.subject }));
    if (events && !cancelled) toolEvents.finished(events.audience, events.tool, response);
    exchange.answer(index, cancelled ? null : response);
  };
  const fail = (thrown: unknown) => {
    if (!(thrown instanceof McpError)) logUnexpected(message.method, thrown);
    finish(failure(message.id, toMcpError(thrown)));
  };
  settle(() => {
    const scope = callScopeOf(message, controller, {
      protocolVersion: ctx.protocolVersion,
      sessionId: ctx.session?.id,
      auth: ctx.auth,
      address: ctx.host,
      clientCapabilities: ctx.session?.clientCapabilities,
      logThreshold: ctx.session?.logLevel ?? "debug",
      channel: exchange.channelFor(controller),
      ...(events ? { onProgress: (progress: number, total: number | undefined) => toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
    });
    const admit = message.method === "tools/batch" ? admitter(state.env, state.limiter, callerKey(ctx.host.clientAddress, ctx.auth), ctx.auth) : undefined;
    const session = ctx.session ? new StoredSessionControl(state.sessions, ctx.session.id) : undefined;
    return dispatch(state.env, message.method, { params: message.params ?? {}, scope, session, ...(admit ? { admit } : {}) });
  }, (result) => finish(success(message.id, result)), fail);
}
