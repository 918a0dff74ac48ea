import { McpError } from "../../../jsonrpc";
import type { RequestHost } from "../../../http/handle-init";
import type { AuthInfo } from "../../../auth/auth-info";
import { callerKey, spendOne } from "../../policy/rate-limit";
import { resolveSession, resolveVersion } from "./lookup";
import { endSessions, type SessionEraState } from "./state";

/** DELETE (basic/transports §session management): the client ends its session. */
export async function handleDelete(state: SessionEraState, request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response> {
  if (!state.stateful) {
    throw McpError.invalidRequest("Method Not Allowed: this server runs stateless; there is no session to end", undefined, 405);
  }
  if (state.limiter) await spendOne(state.limiter, { method: "DELETE", caller: callerKey(host.clientAddress, auth) });
  const found = resolveSession(state, request, auth);
  const session = found instanceof Promise ? await found : found;
  // basic/transports §protocol version header: required on every later request, DELETE
  // included; an invalid or unsupported one (or another than the session's) is 400, as on GET/POST.
  resolveVersion(request, session);
  if (!session) throw McpError.internal();
  await state.sessions.delete(session.id);
  // Ending a session ends its work too, on every instance: running handlers abort, open
  // questions to the client fail, streams close.
  endSessions(state, [session.id], "session terminated");
  return new Response(null, { status: 200 });
}
