import { isOriginAllowed, type OriginPolicy } from "./origin-guard";

/**
 * CORS for browser-based MCP clients (ChatGPT, Claude, MCP Inspector): an exact allow-list of
 * origins (plus loopback when allowed), credentials allowed as seed 001 shows, and every header
 * the transport reads or sets. An origin not on the list gets no CORS headers at all, so the
 * browser refuses to hand the answer to the page; the Origin check (origin-guard.ts) still
 * refuses such requests outright where it applies.
 */

/** Request headers a browser client may send (basic/transports, basic/authorization). */
const ALLOWED_REQUEST_HEADERS = [
  "Accept",
  "Authorization",
  "Content-Type",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Name",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
];

/** 2026-07-28: `Mcp-Param-<Name>` headers mirror x-mcp-header tool parameters. */
const PARAM_HEADER = /^mcp-param-[a-z0-9_-]{1,64}$/i;

/** Response headers a page may read. */
export const EXPOSED_HEADERS = [
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "WWW-Authenticate",
  "Retry-After",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
].join(", ");

const ALLOWED_LOWER = new Set(ALLOWED_REQUEST_HEADERS.map((h) => h.toLowerCase()));
const PREFLIGHT_MAX_AGE = "600";

export interface CorsPolicy extends OriginPolicy {
  /** What the route answers, for Access-Control-Allow-Methods. */
  methods: string;
}

/** The headers an allowed origin's actual (non-preflight) response carries. */
export function applyCors(response: Response, request: Request, policy: OriginPolicy): Response {
  const headers = response.headers;
  // Caches must key on Origin: the same URL answers differently per origin.
  headers.append("Vary", "Origin");
  const origin = request.headers.get("origin");
  if (origin === null || !isOriginAllowed(origin, policy)) return response;
  headers.set("Access-Control-Allow-Origin", origin);
  headers.set("Access-Control-Allow-Credentials", "true");
  headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  return response;
}

/**
 * The answer to a CORS preflight (OPTIONS with Access-Control-Request-Method): the methods, and
 * the requested headers this server reads. A disallowed origin gets a bare 204 — no CORS headers,
 * so the browser stops there.
 */
export function preflightResponse(request: Request, policy: CorsPolicy, extraHeaders?: HeadersInit): Response {
  const headers = new Headers(extraHeaders);
  headers.set("Vary", "Origin, Access-Control-Request-Headers");
  const origin = request.headers.get("origin");
  if (origin !== null && isOriginAllowed(origin, policy)) {
    const requested = (request.headers.get("access-control-request-headers") ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h.length > 0 && (ALLOWED_LOWER.has(h.toLowerCase()) || PARAM_HEADER.test(h)));
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Access-Control-Allow-Credentials", "true");
    headers.set("Access-Control-Allow-Methods", policy.methods);
    headers.set("Access-Control-Allow-Headers", [...new Set([...ALLOWED_REQUEST_HEADERS, ...requested])].join(", "));
    headers.set("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
  }
  return new Response(null, { status: 204, headers });
}
