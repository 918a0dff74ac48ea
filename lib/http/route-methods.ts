import { SERVED_METHODS } from "./request-gate.mjs";

/**
 * A route file's exports for every method Next.js dispatches, from the handlers it has:
 * - HEAD answers as GET would, without the content (RFC 9110 §9.3.2), unless the route has its
 *   own HEAD. Next calls GET for a HEAD itself, but with the HEAD request, which a handler that
 *   routes by method (better-auth) answers 404;
 * - every method the route lacks is 405 with `Allow` (RFC 9110 §15.5.6: a 405 MUST carry it);
 *   Next's own 405 has none;
 * - OPTIONS carries the same `Allow`: the route's own answer (a CORS preflight) with it set, or
 *   204 with it alone. A route whose resources take different methods (a catch-all: better-auth's
 *   endpoints) has a handler for every method and sets `Allow` itself, per resource, with
 *   allowHeader(); an OPTIONS answer that carries one, or did not succeed, is left as it is.
 * Handlers the route has pass through untouched (the hot POST paths gain nothing per request).
 */

export type RouteMethod = (typeof SERVED_METHODS)[number];

export type RouteHandler<Context> = (request: Request, context: Context) => Response | Promise<Response>;

export type RouteExports<Context> = Record<RouteMethod, RouteHandler<Context>>;

/**
 * `Allow` for a resource that takes `methods`, in Next's order: with OPTIONS, which every route
 * answers, and HEAD wherever GET is (RFC 9110 §9.3.2; answered from GET below).
 */
export function allowHeader(methods: Iterable<RouteMethod>): string {
  const served = new Set<RouteMethod>(["OPTIONS", ...methods]);
  if (served.has("GET")) served.add("HEAD");
  return SERVED_METHODS.filter((m) => served.has(m)).join(", ");
}

/** The methods a route answers, for `Allow`. */
function allowOf(handlers: Partial<Record<RouteMethod, unknown>>): string {
  return allowHeader(SERVED_METHODS.filter((method) => handlers[method]));
}

/** `response` with its content dropped: the status and header fields stay (RFC 9110 §9.3.2). */
function withoutContent(response: Response): Response {
  void response.body?.cancel().catch(() => undefined);
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The GET a HEAD stands for, built from the request's parts: Next hands a route it may prerender
 * (one with no `dynamic` export: /preview) a proxy of the request, which `new Request(request)`
 * cannot read (TypeError on a private field: HEAD /preview was a 500, outside probe 2026-11-29).
 */
function headFromGet<Context>(get: RouteHandler<Context>): RouteHandler<Context> {
  return async (request, context) => withoutContent(await get(new Request(request.url, { method: "GET", headers: request.headers, signal: request.signal }), context));
}

function withAllow(response: Response, allow: string): Response {
  if (!response.ok || response.headers.has("allow")) return response;
  const headers = new Headers(response.headers);
  headers.set("allow", allow);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export function routeMethods<Context = unknown>(handlers: Partial<RouteExports<Context>>): RouteExports<Context> {
  const allow = allowOf(handlers);
  const notAllowed: RouteHandler<Context> = () => new Response(null, { status: 405, headers: { allow, "cache-control": "no-store" } });
  const options = handlers.OPTIONS;
  const get = handlers.GET;
  return {
    GET: get ?? notAllowed,
    HEAD: handlers.HEAD ?? (get ? headFromGet(get) : notAllowed),
    OPTIONS: options ? async (request, context) => withAllow(await options(request, context), allow) : () => new Response(null, { status: 204, headers: { allow } }),
    POST: handlers.POST ?? notAllowed,
    PUT: handlers.PUT ?? notAllowed,
    DELETE: handlers.DELETE ?? notAllowed,
    PATCH: handlers.PATCH ?? notAllowed,
  };
}
