import { McpError, failure, success, toMcpError, type JsonRpcRequest, type JsonRpcResponse } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import { STATELESS_ERA_METHODS, dispatch } from "../../methods";
import { InputRequired, ProtocolError } from "../../protocol/protocol-error";
import { logUnexpected, requestLogEntry } from "../../runtime/request-log";
import { admitter } from "../admit";
import { callScopeOf, type ClientAddressSource } from "../call-scope";
import type { LazyAbort } from "../lazy-abort";
import type { ClientAsker, PostExchange } from "../post-exchange";
import { settle } from "../settle";
import { audienceOf } from "../tool-events";
import type { Prepared } from "./prepare-round";
import type { ModernRequestMeta } from "./request-checks";
import type { StatelessEraOptions } from "./state";

/** Asker for requests that may not pause for input: asking is a server bug, reported as such. */
const CANNOT_ASK: ClientAsker = {
  request: (method) => Promise.reject(new ProtocolError(-32603, `${method} cannot be asked during this request`)),
  missingCapability: (capability) => new ProtocolError(-32603, `The ${capability} capability cannot be used during this request`),
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
  const { caller, message, meta, auth, prepared } = input;
  const { env, results, states, toolEvents, log } = options;
  const started = log ? performance.now() : 0;
  // A signed-in caller's tool runs reach its GET streams as named events (tool-events.ts).
  const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
  const audience = tool ? audienceOf(auth?.subject, undefined) : undefined;
  const events = tool && toolEvents.wanted(audience) ? { tool, audience } : undefined;
  const finish = (response: JsonRpcResponse) => {
    if (log) log(requestLogEntry(message, response, { started, cancelled: abort.aborted, subject: auth?.subject }));
    if (events && !abort.aborted) toolEvents.finished(events.audience, events.tool, response);
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
    const scope = callScopeOf(message, abort, {
      protocolVersion: meta.protocolVersion,
      sessionId: undefined,
      auth,
      address: input.address,
      clientCapabilities: meta.clientCapabilities,
      logThreshold: meta.logThreshold,
      channel: exchange.channelFor(abort, prepared?.round ?? CANNOT_ASK),
      ...(events ? { onProgress: (progress: number, total: number | undefined) => toolEvents.progress(events.audience, events.tool, progress, total) } : {}),
    });
    const admit = message.method === "tools/batch" ? admitter(env, options.limiter, caller, auth) : undefined;
    return dispatch(env, message.method, { params: message.params ?? {}, scope, session: undefined, ...(admit ? { admit } : {}) }, STATELESS_ERA_METHODS);
  }, done, fail);
}
