/**
 * Deterministic fantasy names from syllable tables. The same seed gives the same names, so a
 * world's names can be regenerated and a model can ask for "more like these".
 */
export const NAME_STYLES = {
  elvish: { start: ["Ae", "Ela", "Fin", "Gal", "Ili", "Lu", "Syl", "Tha", "Cel", "Ny"], middle: ["ra", "la", "ri", "the", "nde", "wy", "sse"], end: ["ndor", "wen", "riel", "thas", "las", "nor", "iel"] },
  dwarvish: { start: ["Bor", "Dur", "Gim", "Kha", "Thr", "Bal", "Dwa", "Gro", "Mor"], middle: ["a", "o", "in", "ur", "ek"], end: ["in", "ak", "grim", "dun", "rik", "bold", "zad"] },
  nordic: { start: ["As", "Bjor", "Ei", "Hal", "Ing", "Rag", "Sig", "Tor", "Ulf"], middle: ["", "a", "e", "i"], end: ["vald", "rid", "mund", "dis", "gar", "heim", "stad"] },
  desert: { start: ["Al", "Ka", "Sa", "Za", "Me", "Ra", "Ha", "Ta", "Nu"], middle: ["ha", "zi", "ra", "mi", "da"], end: ["rah", "im", "eth", "ar", "un", "ira", "osh"] },
  celestial: { start: ["Ast", "Cae", "Lum", "Sol", "Ver", "Aur", "Ori", "Sel", "Vel"], middle: ["a", "e", "io", "ae", "y"], end: ["ion", "ara", "ius", "ene", "ara", "is", "ova"] },
} as const;

export type NameStyle = keyof typeof NAME_STYLES;
export const NAME_STYLE_IDS = Object.keys(NAME_STYLES) as NameStyle[];

export const NAME_KINDS = ["person", "place", "realm"] as const;
export type NameKind = (typeof NAME_KINDS)[number];

const PLACE_SUFFIX = [" Hollow", " Reach", " Vale", "spire", " Crossing", " Deep", "mere"];
const REALM_PREFIX = ["Kingdom of ", "Free Cities of ", "The ", "Dominion of ", "Marches of "];

/** mulberry32 over a string hash: small, fast, stable across platforms. */
function rng(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], next: () => number): T {
  return items[Math.floor(next() * items.length)] as T;
}

export function forgeNames(style: NameStyle, kind: NameKind, count: number, seed: string): string[] {
  const table = NAME_STYLES[style];
  const next = rng(`${style}:${kind}:${seed}`);
  const names = new Set<string>();
  // Bounded: small tables may not hold `count` distinct names.
  for (let attempt = 0; names.size < count && attempt < count * 20; attempt++) {
    const base = pick(table.start, next) + (next() < 0.6 ? pick(table.middle, next) : "") + pick(table.end, next);
    if (kind === "place") names.add(base + pick(PLACE_SUFFIX, next));
    else if (kind === "realm") names.add(pick(REALM_PREFIX, next) + base);
    else names.add(base);
  }
  return [...names];
}
