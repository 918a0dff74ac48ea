import { applyCors, preflightResponse } from "./cors";
import type { OriginPolicy } from "./origin-guard";

/**
 * Answers for the public OAuth metadata documents (RFC 9728, RFC 8414, JWKS). They hold nothing
 * secret, so any client may read them; browser pages on the allowed origins (ChatGPT, Claude,
 * MCP Inspector on loopback) may read them cross-origin, under the same CORS policy as
 * /api/mcp. Caches may keep them briefly.
 */
const PUBLIC_HEADERS = { "content-type": "application/json", "cache-control": "public, max-age=300" } as const;

export function metadataResponse(request: Request, policy: OriginPolicy, document: Record<string, unknown> | undefined, what: string): Response {
  if (!document) {
    const body = JSON.stringify({ error: "temporarily_unavailable", error_description: `${what} cannot be fetched right now` });
    return applyCors(new Response(body, { status: 502, headers: { ...PUBLIC_HEADERS, "cache-control": "no-store" } }), request, policy);
  }
  return applyCors(new Response(JSON.stringify(document), { headers: PUBLIC_HEADERS }), request, policy);
}

/** The document cannot exist until the deployment is configured: 503, saying what to set, never cached. */
export function metadataUnavailable(request: Request, policy: OriginPolicy, description: string): Response {
  const body = JSON.stringify({ error: "temporarily_unavailable", error_description: description });
  return applyCors(new Response(body, { status: 503, headers: { ...PUBLIC_HEADERS, "cache-control": "no-store" } }), request, policy);
}

export function metadataNotFound(request: Request, policy: OriginPolicy, what: string): Response {
  return applyCors(new Response(JSON.stringify({ error: "not_found", error_description: what }), { status: 404, headers: PUBLIC_HEADERS }), request, policy);
}

/** CORS preflight for the metadata routes: GET only. (`Allow` is the route's: lib/http/route-methods.ts.) */
export function metadataPreflight(request: Request, policy: OriginPolicy): Response {
  return preflightResponse(request, { ...policy, methods: "GET, OPTIONS" });
}
