/**
 * The one resource this authorization server issues tokens for (settings.resourceUrl: the MCP
 * endpoint), and how a request's `resource` values (RFC 8707 §2) are read against it.
 */

const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * `resource` as better-auth looks it up (an exact string): this server's own resource written with
 * an uppercase scheme or host (HTTP://Example.COM/api/mcp) becomes the canonical form. The spec asks
 * for that leniency (basic/authorization §canonical server URI: implementations SHOULD accept
 * uppercase scheme and host components); anything else is left for better-auth to refuse.
 */
export function canonicalResource(value: unknown, resourceUrl: string): unknown {
  if (typeof value !== "string" || value === resourceUrl) return value;
  // resourceUrl is canonical (lib/auth/resource-url.ts): lowercase scheme and host, nothing else
  // changed. Lowercasing the same part of `value` is the only leniency; path and query stay as sent.
  return value.replace(SCHEME_AND_AUTHORITY, (prefix) => prefix.toLowerCase()) === resourceUrl ? resourceUrl : value;
}

/** A request's `resource`, one value or several, with this server's own in canonical form. */
export function canonicalResources(value: unknown, resourceUrl: string): unknown {
  return Array.isArray(value) ? value.map((v) => canonicalResource(v, resourceUrl)) : canonicalResource(value, resourceUrl);
}

/** The values among `values` that do not name this server's one resource. */
export function foreignResources(values: readonly string[], resourceUrl: string): string[] {
  return values.filter((value) => canonicalResource(value, resourceUrl) !== resourceUrl);
}

/**
 * better-auth exempts its own userinfo URL from the resource check (resolveResourcePolicy: an
 * OpenID Connect audience it always grants), so a client asking for it got a token with that
 * audience, alone or beside this server's (outside probe, 2026-11-29). This server is no OpenID
 * provider and serves one resource. The URL written with an uppercase scheme is the same URI (RFC
 * 3986 §6.2.2.1) and a string better-auth does not exempt: it looks it up, finds no resource, and
 * answers invalid_target to the client's redirect URI with its state, as for any resource it does
 * not know. `userinfo`: better-auth's own spelling, `${baseURL}/oauth2/userinfo`.
 */
export function withoutUserinfoExemption(value: unknown, userinfo: string): unknown {
  const unexempt = (v: unknown) => (v === userinfo ? v.replace(SCHEME_AND_AUTHORITY, (prefix) => prefix.replace(/^[a-z]+/, (scheme) => scheme.toUpperCase())) : v);
  return Array.isArray(value) ? value.map(unexempt) : unexempt(value);
}
