import { createHash } from "node:crypto";

/**
 * Answers for public discovery documents (the AI Catalog and the MCP Server Card), as the Server
 * Card extension's docs/discovery.md asks of their hosts: readable from any origin (§CORS
 * requirements: `*`, GET, `If-None-Match`, `ETag` exposed), cacheable for an hour with an ETag,
 * and `304 Not Modified` when the client's `If-None-Match` names the current one (§caching).
 */

export interface DiscoveryDocument {
  /** The JSON text, serialized once. */
  body: string;
  /** A strong validator of that text. */
  etag: string;
}

export function discoveryDocument(document: Record<string, unknown>): DiscoveryDocument {
  const body = JSON.stringify(document);
  return { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}

/**
 * A document per public URL, built and serialized once: the URL comes from configuration or the
 * Host header, so the memo is bounded (and simply starts over when full).
 */
export function memoisedDocuments(build: (resourceUrl: string) => Record<string, unknown>, limit = 16): (resourceUrl: string) => DiscoveryDocument {
  const memo = new Map<string, DiscoveryDocument>();
  return (resourceUrl) => {
    let document = memo.get(resourceUrl);
    if (!document) {
      if (memo.size >= limit) memo.clear();
      document = discoveryDocument(build(resourceUrl));
      memo.set(resourceUrl, document);
    }
    return document;
  };
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET",
  "access-control-allow-headers": "Content-Type, If-None-Match",
  "access-control-expose-headers": "ETag",
} as const;

/** Whether an If-None-Match header (a list, or `*`) matches `etag` (RFC 9110 §13.1.2, weak comparison). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/**
 * `varyOn`: the request header fields the document's URLs were taken from (besides Host, which
 * every cache keys on): a shared cache must not hand a document built from one request's
 * forwarding headers to another request (RFC 9111 §4.1).
 */
export function discoveryResponse(request: Request, document: DiscoveryDocument, mediaType: string, varyOn: readonly string[] = []): Response {
  const headers = { ...CORS, "cache-control": "public, max-age=3600", etag: document.etag, vary: ["Accept", ...varyOn].join(", ") };
  if (matches(request.headers.get("if-none-match"), document.etag)) return new Response(null, { status: 304, headers });
  return new Response(document.body, { headers: { ...headers, "content-type": mediaType } });
}

/** CORS preflight for the discovery documents. (`Allow` is the route's: lib/http/route-methods.ts.) */
export function discoveryPreflight(): Response {
  return new Response(null, { status: 204, headers: { ...CORS, "access-control-max-age": "86400" } });
}
