import { McpError, failure, success, toMcpError, type JsonRpcRequest, type JsonRpcResponse } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import { STATELESS_ERA_METHODS, dispatch } from "../../methods";
import { InputRequired, ProtocolError } from "../../protocol/protocol-error";
import { logUnexpected, requestLogEntry } from "../../runtime/request-log";
import { callScopeOf, type ClientAddressSource } from "../call-scope";
import type { LazyAbort } from "../lazy-abort";
import type { ClientAsker, PostExchange } from "../post-exchange";
import { DispatchedCall } from "../dispatched-call";
import type { Prepared } from "./prepare-round";
import type { ModernRequestMeta } from "./request-checks";
import type { StatelessEraOptions } from "./state";

/** Asker for requests that may not pause for input: asking is a server bug, reported as such. */
const CANNOT_ASK: ClientAsker = {
  request: (method) => Promise.reject(new ProtocolError(-32603, `${method} cannot be asked during this request`)),
  missingCapability: (required) => new ProtocolError(-32603, `The "${required.name}" capability cannot be used during this request`),
  cannotAsk: (method) => new ProtocolError(-32603, `${method} cannot be asked during this request`),
};

/** What one 2026-07-28 call runs with: who asks, what its `_meta` says, the answers it brings. */
export interface CallInput {
  caller: string;
  message: JsonRpcRequest;
  meta: ModernRequestMeta;
  auth: AuthInfo | undefined;
  /** The client's trusted address, read on first use (an anonymous caller's task owner). */
  address: ClientAddressSource;
  prepared: Prepared | undefined;
}

/**
 * Dispatch one 2026-07-28 request into its exchange: a complete result, an InputRequiredResult
 * when the handler asked for what the client has not answered yet (basic/patterns/mrtr), or the
 * error. Synchronous methods answer before this returns.
 */
export function runCall(options: StatelessEraOptions, input: CallInput, exchange: PostExchange, abort: LazyAbort): void {
  new ModernCall(options, input, exchange, abort).run();
}

/** One 2026-07-28 call's run (the shared part: dispatched-call.ts). */
class ModernCall extends DispatchedCall {
  constructor(
    private readonly options: StatelessEraOptions,
    private readonly input: CallInput,
    private readonly exchange: PostExchange,
    private readonly abort: LazyAbort,
  ) {
    super(input.message, input.auth?.subject, undefined, options.toolEvents, options.log !== undefined);
  }

  protected dispatch(): Record<string, unknown> | Promise<Record<string, unknown>> {
    const { options, input, exchange, abort, events } = this;
    const { caller, message, meta, auth, prepared } = input;
    const scope = callScopeOf(message, abort, {
      protocolVersion: meta.protocolVersion,
      sessionId: undefined,
      auth,
      address: input.address,
      clientCapabilities: meta.clientCapabilities,
      logThreshold: meta.logThreshold,
      channel: exchange.channelFor(abort, prepared ?? CANNOT_ASK),
      ...(events ? { onProgress: (progress: number, total: number | undefined) => options.toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
    });
    // No `admit`: tools/batch, the one method that runs calls inside itself, is the session era's.
    return dispatch(options.env, message.method, { params: message.params ?? {}, scope, session: undefined }, STATELESS_ERA_METHODS);
  }

  protected succeed(result: Record<string, unknown>): void {
    const { message } = this.input;
    this.finish(this.askFor() ?? success(message.id, this.options.results.complete(message.method, result)));
  }

  protected fail(thrown: unknown): void {
    const { message } = this.input;
    const paused = thrown instanceof InputRequired ? this.askFor() : undefined;
    if (paused) return this.finish(paused);
    if (thrown instanceof McpError) this.exchange.refuse(thrown);
    else logUnexpected(message.method, thrown);
    this.finish(failure(message.id, this.options.results.error(toMcpError(thrown))));
  }

  /** The InputRequiredResult, when the handler asked what the client has not answered yet. */
  private askFor(): JsonRpcResponse | undefined {
    const { message, prepared } = this.input;
    if (!prepared || !prepared.needsInput) return undefined;
    const { results, states } = this.options;
    return success(message.id, results.inputRequired(prepared.round.missing, states.issue(prepared.binding, prepared.round.used, Object.keys(prepared.round.missing))));
  }

  private finish(response: JsonRpcResponse): void {
    const { options, input, abort, events } = this;
    if (options.log) options.log(requestLogEntry(input.message, response, { started: this.started, cancelled: abort.aborted, subject: input.auth?.subject }));
    if (events && !abort.aborted) options.toolEvents.finished(events.audience, events.tool, response);
    // Closing the stream cancelled the request: nothing more is sent for it (basic/transports).
    this.exchange.answer(0, abort.aborted ? null : response);
  }
}
