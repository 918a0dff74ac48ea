/**
 * Whether a URL path carries a percent-escape that does not decode (`%E0%A4%A`, a lone `%`).
 * Next.js decodes the dynamic segments of a route before any handler runs and answers such a path
 * with a 500; the request gate in front of Next (lib/http/request-gate.mjs) and, where there is
 * none, the proxy (proxy.ts) refuse it first with a 400. Plain JavaScript: the gate loads no
 * TypeScript.
 */
export function hasMalformedPercentEncoding(pathname) {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/** The one wording of that refusal's body. */
export const MALFORMED_PATH_MESSAGE = "Bad Request: the path has a malformed percent-escape\n";
