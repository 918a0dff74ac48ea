import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER } from "./cursor";
import { containsText } from "./text-match";

/**
 * Full-text-ish search over one owner's worlds, characters and locations: every word of the
 * query must appear (case-insensitive) in one of a record's text fields. Plain `ILIKE` keeps it
 * portable across PGlite and PostgreSQL; hits whose name contains the whole query rank first.
 * Each kind is read in two parts, name hits and the rest, `limit` of each: cut to the newest
 * matches first, a record named by the query lost its place to ten newer ones that only mention
 * it, and search has no second page (outside probe, 2026-11-29).
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

type Where = Record<string, unknown>;
type Row = { id: string; name: string; createdAt: Date };

/** The newest `limit` rows of one kind matching `where`, name hits first: at most `limit` of each part. */
async function nameHitsFirst<R extends Row>(find: (args: { where: Where; orderBy: typeof PAGE_ORDER; take: number }) => Promise<R[]>, where: Where, whole: string, limit: number) {
  const named = { name: containsText(whole) };
  const [byName, rest] = await Promise.all([
    find({ where: { AND: [where, named] }, orderBy: PAGE_ORDER, take: limit }),
    find({ where: { AND: [where, { NOT: named }] }, orderBy: PAGE_ORDER, take: limit }),
  ]);
  return { byName, rest };
}

export async function searchOwned(owner: string, query: string, limit: number): Promise<SearchHit[]> {
  const words = wordsOf(query);
  if (words.length === 0) return [];
  const whole = query.trim().split(/\s+/).join(" ").toLowerCase(); // "Old  Town" is a name hit for "Old Town"
  const prisma = await getPrisma();
  const [worlds, characters, locations] = await Promise.all([
    nameHitsFirst((args) => prisma.world.findMany(args), { ownerSubject: owner, ...everyWordIn(words, ["name", "theme", "tone", "description"]) }, whole, limit),
    nameHitsFirst((args) => prisma.character.findMany(args), { ownerSubject: owner, ...everyWordIn(words, ["name", "role", "backstory"]) }, whole, limit),
    nameHitsFirst((args) => prisma.location.findMany(args), { ownerSubject: owner, ...everyWordIn(words, ["name", "kind", "description"]) }, whole, limit),
  ]);
  const hitsOf = (part: "byName" | "rest"): SearchHit[] => [
    ...worlds[part].map((w) => ({ kind: "world" as const, id: w.id, name: w.name, label: w.theme, text: w.description, worldId: w.id })),
    ...characters[part].map((c) => ({ kind: "character" as const, id: c.id, name: c.name, label: c.role, text: c.backstory, worldId: c.worldId })),
    ...locations[part].map((l) => ({ kind: "location" as const, id: l.id, name: l.name, label: l.kind, text: l.description, worldId: l.worldId })),
  ];
  // Name hits, then the rest; within each, worlds, then characters, then locations, newest first.
  return [...hitsOf("byName"), ...hitsOf("rest")].slice(0, limit);
}
