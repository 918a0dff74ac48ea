import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER } from "./cursor";
import { containsText } from "./text-match";

/**
 * Full-text-ish search over one owner's worlds, characters and locations: every word of the
 * query must appear (case-insensitive) in one of a record's text fields. Plain `ILIKE` keeps it
 * portable across PGlite and PostgreSQL; hits whose name contains the whole query rank first.
 */

export type HitKind = "world" | "character" | "location";

export interface SearchHit {
  kind: HitKind;
  id: string;
  name: string;
  /** A short label for the title: theme, role or kind. */
  label: string;
  text: string;
  worldId: string;
}

const MAX_WORDS = 8;

function wordsOf(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))].slice(0, MAX_WORDS);
}

/** `{ AND: [ {OR: [field contains w1, …]}, … ] }` over the given text fields. */
function everyWordIn(words: string[], fields: string[]) {
  return { AND: words.map((w) => ({ OR: fields.map((f) => ({ [f]: containsText(w) })) })) };
}

export async function searchOwned(owner: string, query: string, limit: number): Promise<SearchHit[]> {
  const words = wordsOf(query);
  if (words.length === 0) return [];
  const prisma = await getPrisma();
  const [worlds, characters, locations] = await Promise.all([
    prisma.world.findMany({
      where: { ownerSubject: owner, ...everyWordIn(words, ["name", "theme", "tone", "description"]) },
      orderBy: PAGE_ORDER,
      take: limit,
    }),
    prisma.character.findMany({
      where: { ownerSubject: owner, ...everyWordIn(words, ["name", "role", "backstory"]) },
      orderBy: PAGE_ORDER,
      take: limit,
    }),
    prisma.location.findMany({
      where: { ownerSubject: owner, ...everyWordIn(words, ["name", "kind", "description"]) },
      orderBy: PAGE_ORDER,
      take: limit,
    }),
  ]);
  const hits: SearchHit[] = [
    ...worlds.map((w) => ({ kind: "world" as const, id: w.id, name: w.name, label: w.theme, text: w.description, worldId: w.id })),
    ...characters.map((c) => ({ kind: "character" as const, id: c.id, name: c.name, label: c.role, text: c.backstory, worldId: c.worldId })),
    ...locations.map((l) => ({ kind: "location" as const, id: l.id, name: l.name, label: l.kind, text: l.description, worldId: l.worldId })),
  ];
  const whole = query.trim().toLowerCase();
  const rank = (h: SearchHit) => (h.name.toLowerCase().includes(whole) ? 0 : 1);
  // Array.prototype.sort is stable: within a rank, worlds, then characters, then locations, newest first.
  return hits.sort((a, b) => rank(a) - rank(b)).slice(0, limit);
}
