import type { Character, Location, World } from "../db/generated/client";

/**
 * The JSON shapes WorldCrafter hands out — in structuredContent, widget `_meta`, resources and
 * exports — built from rows in one place so every surface says the same thing.
 */

const iso = (d: Date) => d.toISOString();

export function worldRecord(w: World) {
  return { id: w.id, name: w.name, theme: w.theme, tone: w.tone, description: w.description, createdAt: iso(w.createdAt), updatedAt: iso(w.updatedAt) };
}

export interface WorldCounts {
  characters: number;
  locations: number;
}

export function worldWithCounts(w: World & { _count: WorldCounts }) {
  return { ...worldRecord(w), counts: { characters: w._count.characters, locations: w._count.locations } };
}

/** A world card (worlds.getWorldCard): the world with its counts and its first characters and locations. */
export function worldCardRecord<C, L>(w: World & { _count: WorldCounts; characters: C[]; locations: L[] }) {
  return { ...worldWithCounts(w), characters: w.characters, locations: w.locations };
}

export function characterRecord(c: Character) {
  return { id: c.id, worldId: c.worldId, name: c.name, role: c.role, traits: c.traits, backstory: c.backstory, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) };
}

export function locationRecord(l: Location) {
  return { id: l.id, worldId: l.worldId, name: l.name, kind: l.kind, description: l.description, parentId: l.parentId, createdAt: iso(l.createdAt), updatedAt: iso(l.updatedAt) };
}

/** Canonical MCP resource URIs of WorldCrafter's records (also the citation urls of search/fetch). */
export const uriOf = {
  worldList: "worlds://list",
  world: (id: string) => `world://${encodeURIComponent(id)}`,
  worldCharacters: (id: string) => `world://${encodeURIComponent(id)}/characters`,
  worldExport: (id: string, format: "md" | "json") => `world://${encodeURIComponent(id)}/export.${format}`,
  character: (id: string) => `character://${encodeURIComponent(id)}`,
  location: (id: string) => `location://${encodeURIComponent(id)}`,
};
