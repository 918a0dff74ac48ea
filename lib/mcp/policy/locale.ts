/**
 * Locale negotiation for text a server writes for people (tool narration, prompt text). ChatGPT
 * sends the user's BCP 47 tag as `_meta["openai/locale"]` on initialize and on every call; the
 * server answers in the best supported locale by RFC 4647 §3.4 "lookup": try the whole tag, then
 * drop subtags from the end (and a singleton left dangling, like the "x" of "x-private"), then
 * fall back to the default.
 */
export interface LocalePolicy {
  /** Tags the server can write, in their canonical spelling (e.g. "en", "fr", "es-419"). */
  supported: readonly string[];
  /** Used when nothing the client asked for is supported; must be one of `supported`. */
  fallback: string;
}

/** The `_meta` key ChatGPT uses for the user's locale (seed 000 §locale negotiation). */
export const LOCALE_META_KEY = "openai/locale";

const MAX_RANGES = 8;

/**
 * A language priority list: one tag, or an Accept-Language style list ("fr-CA, en;q=0.8").
 * Ranges with q=0 are excluded (RFC 9110 §12.5.4); order is by weight, then position.
 */
function priorityList(requested: string): string[] {
  return requested
    .split(",")
    .slice(0, MAX_RANGES)
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((r) => /^[A-Za-z0-9]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(r.tag) && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((r) => r.tag);
}

/** RFC 4647 §3.4 lookup over `policy.supported`; case-insensitive, answers the supported spelling. */
export function lookupLocale(requested: unknown, policy: LocalePolicy): string {
  if (typeof requested !== "string" || requested.length === 0 || requested.length > 256) return policy.fallback;
  const byLower = new Map(policy.supported.map((tag) => [tag.toLowerCase(), tag]));
  for (const range of priorityList(requested)) {
    let subtags = range.toLowerCase().split("-");
    while (subtags.length > 0) {
      const hit = byLower.get(subtags.join("-"));
      if (hit) return hit;
      subtags = subtags.slice(0, -1);
      // §3.4 step: a trailing singleton ("x", "u") cannot stand alone; drop it with its subtag.
      if (subtags.length > 0 && subtags[subtags.length - 1]!.length === 1) subtags = subtags.slice(0, -1);
    }
  }
  return policy.fallback;
}
