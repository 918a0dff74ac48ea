import { NextResponse, type NextRequest } from "next/server";
import { hasMalformedPercentEncoding, MALFORMED_PATH_MESSAGE } from "./lib/http/path-encoding.mjs";

/**
 * Runs before the routes with dynamic segments only (the matcher keeps it off /api/mcp's hot
 * path): a path whose percent-escapes do not decode is a client's mistake, answered 400 here
 * rather than the 500 Next.js would give while decoding the segment. Under `npm start` and
 * `npm run dev` the request gate (lib/http/request-gate.mjs) has refused such a path already,
 * whatever the method; this is for hosts without it (Vercel, a bare `next start`).
 *
 * Only for requests without a body (no Transfer-Encoding, no Content-Length above 0): for every
 * request its proxy runs for, Next copies the body for the proxy and reads the whole of it (10 MB
 * kept, the rest read and dropped) before the route runs, so the routes' body limits (/api/auth,
 * /auth/submit: docs/edge.md) would come after the whole body was in.
 */
export function proxy(request: NextRequest): NextResponse {
  if (hasMalformedPercentEncoding(request.nextUrl.pathname)) {
    return new NextResponse(MALFORMED_PATH_MESSAGE, { status: 400, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  }
  return NextResponse.next();
}

// Literal objects: Next reads this config without running the module.
export const config = {
  matcher: [
    { source: "/api/files/:path*", missing: [{ type: "header", key: "transfer-encoding" }, { type: "header", key: "content-length", value: "0*[1-9][0-9]*" }] },
    { source: "/api/auth/:path*", missing: [{ type: "header", key: "transfer-encoding" }, { type: "header", key: "content-length", value: "0*[1-9][0-9]*" }] },
    { source: "/auth/:path*", missing: [{ type: "header", key: "transfer-encoding" }, { type: "header", key: "content-length", value: "0*[1-9][0-9]*" }] },
    { source: "/records/:path*", missing: [{ type: "header", key: "transfer-encoding" }, { type: "header", key: "content-length", value: "0*[1-9][0-9]*" }] },
  ],
};
