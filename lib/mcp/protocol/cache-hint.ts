/**
 * How long a result may be reused and by whom (2026-07-28 server/utilities/caching: `ttlMs`,
 * `cacheScope`). Attached to result objects under a symbol, so it never leaks onto the wire of
 * the session era; the 2026-07-28 edge writes it out.
 */
export interface CacheHint {
  /** "public": the same for every caller; "private": reuse only within one authorization context. */
  scope: "public" | "private";
  ttlMs: number;
}

const CACHE_HINT = Symbol("mcp.cacheHint");

export function withCacheHint<T extends object>(result: T, hint: CacheHint): T {
  Object.defineProperty(result, CACHE_HINT, { value: hint, enumerable: false });
  return result;
}

export function cacheHintOf(result: object): CacheHint | undefined {
  return (result as { [CACHE_HINT]?: CacheHint })[CACHE_HINT];
}
