import { Header } from "../protocol/http-headers";
import { MetaKey } from "../protocol/meta-keys";
import { isLegacyVersion, isStatelessEraVersion } from "../protocol/protocol-versions";

/**
 * Era per request (basic/versioning): a non-legacy MCP-Protocol-Version header, or the 2026
 * `_meta` protocolVersion in the body, selects the stateless era; everything else is the
 * session era (initialize, Mcp-Session-Id).
 */
export function isStatelessEra(request: Request, body: unknown): boolean {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const meta = (body as { params?: { _meta?: unknown } }).params?._meta;
    if (typeof meta === "object" && meta !== null && MetaKey.ProtocolVersion in meta) return true;
  }
  const header = request.headers.get(Header.ProtocolVersion)?.trim();
  if (header === undefined || header === "") return false;
  // 2026-07-28 ignores Mcp-Session-Id; an unknown version inside a session is the session era's
  // to refuse (400 with the versions it speaks).
  if (isStatelessEraVersion(header)) return true;
  return !request.headers.has(Header.SessionId) && !isLegacyVersion(header);
}
