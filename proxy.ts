import { NextResponse, type NextRequest } from "next/server";
import { hasMalformedPercentEncoding } from "./lib/http/path-encoding";

/**
 * Runs before the routes with dynamic segments only (the matcher keeps it off /api/mcp's hot
 * path): a path whose percent-escapes do not decode is a client's mistake, answered 400 here
 * rather than the 500 Next.js would give while decoding the segment.
 */
export function proxy(request: NextRequest): NextResponse {
  if (hasMalformedPercentEncoding(request.nextUrl.pathname)) {
    return new NextResponse("Bad Request: the path has a malformed percent-escape\n", { status: 400, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  }
  return NextResponse.next();
}

export const config = {
  matcher: ["/api/files/:path*", "/api/auth/:path*", "/auth/:path*", "/records/:path*"],
};
