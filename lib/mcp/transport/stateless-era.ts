import { McpError, classifyMessage, toMcpError, type JsonRpcRequest } from "../../jsonrpc";
import type { Acceptable } from "../../http/accept";
import type { RequestHost } from "../../http/handle-init";
import { errorResponse } from "../../http/json-response";
import type { AuthInfo } from "../../auth/auth-info";
import { callerKey, spendOne } from "../policy/rate-limit";
import { logUnexpected } from "../runtime/request-log";
import { serveRequest } from "./stateless/serve";
import type { StatelessEraOptions } from "./stateless/state";

export type { StatelessEraOptions } from "./stateless/state";

export interface StatelessEra {
  post(request: Request, body: unknown, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Response | Promise<Response>;
}

/**
 * The 2026-07-28 POST (basic/transports, stateless): one JSON-RPC request per POST, every fact
 * about the caller in `_meta`, nothing kept between requests but what the client carries back
 * (requestState). Served by the same method handlers as the session era; the parts live in
 * stateless/ (serve.ts: checks, budget, listen; run-call.ts: the call; prepare-round.ts: answers).
 */
export function createStatelessEra(options: StatelessEraOptions): StatelessEra {
  return { post: (request, body, accept, auth, host) => post(options, request, body, accept, auth, host) };
}

/**
 * A parsed POST body of the 2026-07-28 era. Every refusal echoes the request id where it can.
 * Not async: a quick call answers without a promise of its own (serve.ts).
 */
function post(options: StatelessEraOptions, request: Request, body: unknown, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Response | Promise<Response> {
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
    const accepted = () => new Response(null, { status: 202 });
    return options.limiter ? spendOne(options.limiter, { method: classified.message.method, caller: callerKey(host.clientAddress, auth) }).then(accepted) : accepted();
  }
  const message = classified.message;
  try {
    const served = serveRequest(options, request, message, accept, auth, host);
    return served instanceof Promise ? served.catch((thrown: unknown) => refusal(options, message, thrown)) : served;
  } catch (thrown) {
    return refusal(options, message, thrown);
  }
}

/** A request refused after its envelope was read: the JSON-RPC error, with the request's id. */
function refusal(options: StatelessEraOptions, message: JsonRpcRequest, thrown: unknown): Response {
  if (!(thrown instanceof McpError)) logUnexpected(message.method, thrown);
  return errorResponse(options.results.error(toMcpError(thrown)), message.id);
}
