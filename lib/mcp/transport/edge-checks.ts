import { McpError } from "../../jsonrpc";
import type { AuthInfo } from "../../auth/auth-info";
import { unauthorized, type AccessControl } from "../../auth/access-control";

/** Node's own cap on a request's header section (--max-http-header-size): it answers 431 itself. */
const NODE_HEADER_LIMIT = 16 * 1024;

/** RFC 6585 §5: refuse oversized header sections before reading anything else. */
export function assertHeadersWithin(request: Request, maxBytes: number): void {
  // Node's HTTP parser already refuses more than its limit; count only when configured tighter.
  if (maxBytes >= NODE_HEADER_LIMIT) return;
  let total = 0;
  for (const [name, value] of request.headers) total += name.length + value.length + 4;
  if (total > maxBytes) {
    throw McpError.invalidRequest(`Request Header Fields Too Large: more than ${maxBytes} bytes of headers`, { maxHeaderBytes: maxBytes }, 431);
  }
}

/**
 * The caller, checked before anything else runs (basic/authorization §token handling): a bad
 * token is a 401 whatever the request; no token is a 401 only when tokens are required.
 */
export function authenticate(access: AccessControl | undefined, request: Request): AuthInfo | undefined | Promise<AuthInfo | undefined> {
  if (!access) return undefined;
  const found = access.authenticate(request);
  const check = (auth: AuthInfo | undefined) => {
    if (!auth && access.mode === "required") throw unauthorized(access);
    return auth;
  };
  return found instanceof Promise ? found.then(check) : check(found);
}
