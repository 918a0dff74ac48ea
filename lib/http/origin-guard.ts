import { McpError } from "../jsonrpc";
import { isLoopbackHost } from "./loopback-host";

/**
 * DNS-rebinding defence (basic/transports §security warning): a request carrying an Origin that is
 * not on the allow-list is refused with 403. Requests without Origin (curl, server-to-server
 * clients, the SDKs on Node) are not browser requests and pass. Loopback origins pass on any port
 * because a rebinding attack always arrives with the attacker's own origin.
 */
export interface OriginPolicy {
  allowedOrigins: readonly string[];
  allowLoopback: boolean;
}

export function isOriginAllowed(origin: string, policy: OriginPolicy): boolean {
  if (policy.allowedOrigins.includes(origin)) return true;
  if (!policy.allowLoopback) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** Throws the 403 refusal for a disallowed Origin; returns nothing when the request may go on. */
export function assertOriginAllowed(request: Request, policy: OriginPolicy): void {
  const origin = request.headers.get("origin");
  if (origin === null || isOriginAllowed(origin, policy)) return;
  throw McpError.invalidRequest("Forbidden: Origin not allowed", { origin }, 403);
}

/** The deployment's origin policy from its validated configuration. */
export function originPolicyOf(env: { MCP_ALLOWED_ORIGINS: readonly string[]; MCP_ALLOW_LOOPBACK_ORIGINS: boolean }): OriginPolicy {
  return { allowedOrigins: env.MCP_ALLOWED_ORIGINS, allowLoopback: env.MCP_ALLOW_LOOPBACK_ORIGINS };
}
