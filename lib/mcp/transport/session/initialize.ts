import { McpError, success, toMcpError, type JsonRpcRequest } from "../../../jsonrpc";
import type { Acceptable } from "../../../http/accept";
import type { RequestHost } from "../../../http/handle-init";
import { errorResponse, jsonResponse } from "../../../http/json-response";
import type { AuthInfo } from "../../../auth/auth-info";
import { initialize } from "../../methods";
import { callerKey, spendOne } from "../../policy/rate-limit";
import { Header, ResponseHeader } from "../../protocol/http-headers";
import { mintSessionId } from "../session-store";
import { sseAnswer } from "../sse";
import { endSessions, type SessionEraState } from "./state";

/** initialize (lifecycle): version negotiation, and a new session when the server keeps them. */
export async function handleInitialize(
  state: SessionEraState,
  request: Request,
  message: JsonRpcRequest,
  accept: Acceptable,
  auth: AuthInfo | undefined,
  host: RequestHost,
): Promise<Response> {
  if (state.stateful && request.headers.get(Header.SessionId)) {
    throw McpError.invalidRequest("Bad Request: initialize must not carry Mcp-Session-Id; it starts a new session");
  }
  // initialize has a budget of its own: each one may create a session, and sessions are capped
  // per caller (session-store.ts), so a flood only ever evicts the flooder's own sessions.
  const caller = callerKey(host.clientAddress, auth);
  const headers = new Headers(state.limiter ? await spendOne(state.limiter, { method: "initialize", caller }) : undefined);
  const started = performance.now();
  let negotiated;
  try {
    negotiated = initialize(state.env, message.params ?? {});
  } catch (thrown) {
    return errorResponse(toMcpError(thrown), message.id);
  }
  if (state.stateful) {
    const now = Date.now();
    const id = mintSessionId();
    const ended = await state.sessions.create({
      id,
      caller,
      protocolVersion: negotiated.protocolVersion,
      clientInfo: negotiated.clientInfo,
      clientCapabilities: negotiated.clientCapabilities,
      initialized: false,
      subject: auth?.subject,
      logLevel: undefined,
      subscriptions: [],
      createdAt: now,
      expiresAt: now + state.limits.sessionTtlMs,
    });
    // A session ended to make room ends like a deleted one: its streams close, its calls stop and
    // its stream slots free up; left open they held the caller's slots for a session that answers 404.
    endSessions(state, ended, "session ended: a newer session took its place");
    headers.set(ResponseHeader.SessionId, id);
  }
  state.log?.({ method: "initialize", ms: Math.round((performance.now() - started) * 100) / 100, outcome: "ok" });
  const response = success(message.id, negotiated.result);
  // Accept: text/event-stream alone refuses JSON: the one answer travels as an SSE event.
  return accept.json ? jsonResponse(response, 200, headers) : sseAnswer(JSON.stringify(response), 200, headers);
}
