/**
 * The canonical URI of the protected resource (RFC 8707 §2; basic/authorization §canonical server
 * URI): lowercase scheme and host, no fragment, no query, no trailing slash. Tokens must name it
 * as their audience, and the metadata's `resource` spells it exactly so.
 */
export function canonicalResourceUrl(raw: string): string {
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`the resource URL must be http(s): ${raw}`);
  url.hash = "";
  url.search = "";
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host.toLowerCase()}${path}`;
}

/**
 * RFC 9728 §3.1: the metadata URL inserts the well-known segment between the host and the
 * resource's path (`https://host/.well-known/oauth-protected-resource/api/mcp`).
 */
export function protectedResourceMetadataUrl(resourceUrl: string): string {
  const url = new URL(resourceUrl);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
