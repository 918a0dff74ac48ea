/**
 * Whether a URL path carries a percent-escape that does not decode (`%E0%A4%A`, a lone `%`).
 * Next.js decodes the dynamic segments of a route before any handler runs and answers such a path
 * with a 500; the proxy (proxy.ts) refuses it first with a 400.
 */
export function hasMalformedPercentEncoding(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}
