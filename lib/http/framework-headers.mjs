/**
 * Request headers Next.js answers by itself before any route handler runs. A client could send
 * them to a route handler to get Next's answer in place of the route's, with none of its checks:
 * - `x-middleware-prefetch` (any value): Next answers 200 `{}` (base-server.js, for its client
 *   router's prefetches through a proxy). A POST to /api/mcp from a foreign Origin, with a body
 *   that is not JSON, or a DELETE of a session, got 200 with nothing checked and nothing done:
 *   the client believed its session ended (outside probe, 2026-11-29).
 * - `RSC: 1`: a 307 to the same path with `?_rsc` (Next's cache-busting check for React Server
 *   Component requests), for every method.
 * No route handler serves a prefetch or an RSC payload, so on their paths both are removed. The
 * pages keep them: Next's client router sends them there. Called by the request gate
 * (request-gate.mjs) for each request it lets through. Plain JavaScript because scripts/start.mjs
 * runs before Next and loads no TypeScript; not on Vercel, whose server is its own (docs/edge.md).
 */

/** Where app/ has route handlers (route.ts) and no page: tests/unit/framework-headers.test.ts keeps this true. */
export const ROUTE_HANDLER_PREFIXES = Object.freeze(["/api/", "/.well-known/", "/auth/submit/", "/preview"]);

/** The headers removed on those paths, lower-cased as node keys them. */
export const FRAMEWORK_HEADERS = Object.freeze(["x-middleware-prefetch", "rsc"]);

/**
 * Whether `url` (a request-target: path and query) is a route handler's, as Next routes it: after
 * its dot segments are removed, `%2e` among them (RFC 3986 §5.2.4; `/./api/mcp`, `/x/../api/mcp`
 * and `/%2e/api/mcp` reached /api/mcp with the headers kept, outside probe 2026-11-29).
 */
export function isRouteHandlerPath(url) {
  const raw = url.split("?", 1)[0];
  const path = /(^|\/)(\.|%2e)/i.test(raw) ? resolvedPath(raw) : raw;
  return ROUTE_HANDLER_PREFIXES.some((prefix) => path.startsWith(prefix));
}

function resolvedPath(raw) {
  try {
    return new URL(raw, "http://front.invalid").pathname;
  } catch {
    return raw;
  }
}

/** Removes FRAMEWORK_HEADERS from `headers` (node's req.headers) when `url` is a route handler's. */
export function dropFrameworkHeaders(url, headers) {
  if (!("rsc" in headers) && !("x-middleware-prefetch" in headers)) return;
  if (!isRouteHandlerPath(url)) return;
  for (const name of FRAMEWORK_HEADERS) delete headers[name];
}
