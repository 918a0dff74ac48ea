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
import { DispatchedCall } from "../dispatched-call";
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
  /** The answer's headers so far (PostExchange's `headers`). */
  headers: Record<string, string>;
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
  new SessionCall(state, ctx, message, exchange, index, controller).run();
}

/** One request's run in a session era (the shared part: dispatched-call.ts). */
class SessionCall extends DispatchedCall {
  private readonly done: () => void;

  constructor(
    private readonly state: SessionEraState,
    private readonly ctx: PostContext,
    private readonly message: JsonRpcRequest,
    private readonly exchange: PostExchange,
    private readonly index: number,
    private readonly controller: LazyAbort,
  ) {
    super(message, ctx.auth?.subject, ctx.session?.id, state.toolEvents, state.log !== undefined);
    this.done = state.inFlight.start(callerScope(ctx.session, ctx.auth), message.id, controller);
  }

  protected dispatch(): Record<string, unknown> | Promise<Record<string, unknown>> {
    const { state, ctx, message, exchange, controller, events } = this;
    const scope = callScopeOf(message, controller, {
      protocolVersion: ctx.protocolVersion,
      sessionId: ctx.session?.id,
      auth: ctx.auth,
      address: ctx.host,
      clientCapabilities: ctx.session?.clientCapabilities,
      logThreshold: ctx.session?.logLevel ?? "unset",
      channel: exchange.channelFor(controller),
      ...(events ? { onProgress: (progress: number, total: number | undefined) => state.toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
    });
    const admit = message.method === "tools/batch" ? admitter(state.env, state.limiter, callerKey(ctx.host.clientAddress, ctx.auth), ctx.auth) : undefined;
    const session = ctx.session ? new StoredSessionControl(state.sessions, ctx.session.id) : undefined;
    return dispatch(state.env, message.method, { params: message.params ?? {}, scope, session, ...(admit ? { admit } : {}) });
  }

  protected succeed(result: Record<string, unknown>): void {
    this.finish(success(this.message.id, result));
  }

  protected fail(thrown: unknown): void {
    if (thrown instanceof McpError) this.exchange.refuse(thrown);
    else logUnexpected(this.message.method, thrown);
    this.finish(failure(this.message.id, toMcpError(thrown)));
  }

  private finish(response: JsonRpcResponse): void {
    const { state, ctx, message, controller, events } = this;
    this.done();
    const cancelled = controller.reason instanceof CancelledError;
    if (state.log) state.log(requestLogEntry(message, response, { started: this.started, cancelled, session: ctx.session?.id, subject: ctx.auth?.subject }));
    if (events && !cancelled) state.toolEvents.finished(events.audience, events.tool, response);
    // Questions the call left open are over with it; the client hears so before the answer.
    state.pending.endCall(controller);
    this.exchange.answer(this.index, cancelled ? null : response);
  }
}
