import { NextResponse, type NextRequest } from "next/server";
import { hasMalformedPercentEncoding, MALFORMED_PATH_MESSAGE } from "./lib/http/path-encoding.mjs";

/**
 * Runs before the routes with dynamic segments only (the matcher keeps it off /api/mcp's hot
 * path): a path whose percent-escapes do not decode is a client's mistake, answered 400 here
 * rather than the 500 Next.js would give while decoding the segment. Under `npm start` and
 * `npm run dev` the request gate (lib/http/request-gate.mjs) has refused such a path already,
 * whatever the method; this is for hosts without it (Vercel, a bare `next start`).
 */
export function proxy(request: NextRequest): NextResponse {
  if (hasMalformedPercentEncoding(request.nextUrl.pathname)) {
    return new NextResponse(MALFORMED_PATH_MESSAGE, { status: 400, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  }
  return NextResponse.next();
}

export const config = {
  matcher: ["/api/files/:path*", "/api/auth/:path*", "/auth/:path*", "/records/:path*"],
};
