import { McpError } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import { Header } from "../../protocol/http-headers";
import { DEFAULT_ASSUMED_VERSION, SUPPORTED_VERSIONS, isSupportedVersion } from "../../protocol/protocol-versions";
import { logUnexpected } from "../../runtime/request-log";
import type { SessionRecord } from "../session-store";
import type { SessionEraState } from "./state";

/**
 * Look up the request's session, enforcing basic/transports §session management. Synchronous
 * when the store is (the in-process default): no promise on the hot path.
 */
export function resolveSession(
  state: SessionEraState,
  request: Request,
  auth: AuthInfo | undefined,
): SessionRecord | undefined | Promise<SessionRecord | undefined> {
  if (!state.stateful) return undefined;
  const id = request.headers.get(Header.SessionId);
  if (id === null || id === "") {
    throw McpError.invalidRequest("Bad Request: Mcp-Session-Id header is required (send initialize first)");
  }
  if (id.length > 128) return checkSession(state, undefined, auth);
  const found = state.sessions.get(id);
  return found instanceof Promise ? found.then((s) => checkSession(state, s, auth)) : checkSession(state, found, auth);
}

function checkSession(state: SessionEraState, session: SessionRecord | undefined, auth: AuthInfo | undefined): SessionRecord {
  // Another subject's session is answered exactly like an unknown one: no existence oracle.
  if (!session || session.subject !== auth?.subject) {
    throw McpError.invalidRequest("Session not found: it expired or was ended; initialize a new one", undefined, 404);
  }
  // Sliding expiry, written at most once per half-TTL so active sessions don't cost a write per request.
  const now = Date.now();
  const ttl = state.limits.sessionTtlMs;
  if (session.expiresAt - now < ttl / 2) {
    const expiresAt = now + ttl;
    session.expiresAt = expiresAt;
    // A function of the stored record: requests crossing the half-TTL at once write it once.
    state.sessions.update(session.id, (current) => (current.expiresAt - now < ttl / 2 ? { expiresAt } : undefined)).catch((e: unknown) => logUnexpected("session expiry update", e));
  }
  return session;
}

/** MCP-Protocol-Version (basic/transports §protocol version header, 2025-06-18+). */
export function resolveVersion(request: Request, session: SessionRecord | undefined): string {
  const header = request.headers.get(Header.ProtocolVersion);
  if (header !== null) {
    if (!isSupportedVersion(header)) {
      throw McpError.invalidRequest(`Bad Request: unsupported MCP-Protocol-Version "${header.slice(0, 64)}"`, {
        supported: SUPPORTED_VERSIONS,
      });
    }
    if (session && header !== session.protocolVersion) {
      throw McpError.invalidRequest(
        `Bad Request: MCP-Protocol-Version "${header}" differs from the session's negotiated "${session.protocolVersion}"`,
      );
    }
    return header;
  }
  return session?.protocolVersion ?? DEFAULT_ASSUMED_VERSION;
}
