import { getPrisma, sql } from "../../db/prisma";
import type { World } from "../../db/generated/client";
import { CREATION_ORDER, PAGE_ORDER, afterKey, decodeCursor, pageOf } from "./cursor";
import { NotFoundError } from "./errors";
import { assertRoomForWorld } from "./quotas";
import { containsText, equalsText, startsWithExactly, startsWithText } from "./text-match";

/** Worlds of one owner. Every query filters by ownerSubject; ids of other owners are "not found". */

export interface WorldInput {
  name: string;
  theme: string;
  description?: string;
  tone?: string;
}

export interface WorldFilter {
  theme?: string;
  nameContains?: string;
  cursor?: string;
  limit: number;
}

export async function createWorld(owner: string, input: WorldInput) {
  await assertRoomForWorld(owner);
  return (await getPrisma()).world.create({ data: { ownerSubject: owner, ...input } });
}

export async function listWorlds(owner: string, filter: WorldFilter) {
  const scope = ["worlds", owner, filter.theme, filter.nameContains] as const;
  const rows = await (await getPrisma()).world.findMany({
    where: {
      ownerSubject: owner,
      ...(filter.theme ? { theme: equalsText(filter.theme) } : {}),
      ...(filter.nameContains ? { name: containsText(filter.nameContains) } : {}),
      ...afterKey(decodeCursor(filter.cursor, scope)),
    },
    orderBy: PAGE_ORDER,
    take: filter.limit + 1,
  });
  return pageOf(rows, filter.limit, scope);
}

interface Preview {
  id: string;
  name: string;
}

interface WorldCardRow extends World {
  characterCount: number;
  locationCount: number;
  characters: (Preview & { role: string })[];
  locations: (Preview & { kind: string })[];
}

/**
 * A world with its counts and its first few characters and locations (the world card), in one
 * statement and one round trip (Prisma's relation API takes three). It is the call hosts make
 * most, so it skips Prisma's query engine too (lib/db sql()): the engine's per-query CPU was more
 * than the query's. Timestamps are read as timestamptz so the driver parses them as UTC.
 */
const WORLD_CARD = `
  SELECT w.id, w."ownerSubject", w.name, w.theme, w.description, w.tone,
    w."createdAt" AT TIME ZONE 'UTC' AS "createdAt", w."updatedAt" AT TIME ZONE 'UTC' AS "updatedAt",
    (SELECT count(*)::int FROM "Character" c WHERE c."worldId" = w.id) AS "characterCount",
    (SELECT count(*)::int FROM "Location" l WHERE l."worldId" = w.id) AS "locationCount",
    COALESCE((SELECT json_agg(p) FROM (SELECT c.id, c.name, c.role FROM "Character" c WHERE c."worldId" = w.id
              ORDER BY c."createdAt", c.id LIMIT $3) p), '[]'::json) AS characters,
    COALESCE((SELECT json_agg(p) FROM (SELECT l.id, l.name, l.kind FROM "Location" l WHERE l."worldId" = w.id
              ORDER BY l."createdAt", l.id LIMIT $3) p), '[]'::json) AS locations
  FROM "World" w
  WHERE w.id = $1 AND w."ownerSubject" = $2`;

export async function getWorldCard(owner: string, id: string, preview = 5) {
  const [row] = await sql<WorldCardRow>(WORLD_CARD, [id, owner, preview]);
  if (!row) throw new NotFoundError("World", id);
  const { characterCount, locationCount, characters, locations, ...world } = row;
  return { ...world, _count: { characters: characterCount, locations: locationCount }, characters, locations };
}

export async function getWorld(owner: string, id: string) {
  const world = await (await getPrisma()).world.findFirst({
    where: { id, ownerSubject: owner },
    include: { _count: { select: { characters: true, locations: true } } },
  });
  if (!world) throw new NotFoundError("World", id);
  return world;
}

/** Throws NotFoundError unless `id` is a world of `owner`. */
export async function assertWorld(owner: string, id: string): Promise<void> {
  const found = await (await getPrisma()).world.findFirst({ where: { id, ownerSubject: owner }, select: { id: true } });
  if (!found) throw new NotFoundError("World", id);
}

export async function updateWorld(owner: string, id: string, changes: Partial<WorldInput>) {
  // updateMany carries the owner filter; the count tells a foreign or missing id apart from success.
  const { count } = await (await getPrisma()).world.updateMany({ where: { id, ownerSubject: owner }, data: changes });
  if (count === 0) throw new NotFoundError("World", id);
  // The card's read: the world card shows an updated world as it shows a read one (first characters and places).
  return getWorldCard(owner, id);
}

/**
 * Deletes the world with its characters and locations (cascade); answers the ids of those that
 * went with it, so their subscribers can be told.
 */
export async function deleteWorld(owner: string, id: string): Promise<{ characterIds: string[]; locationIds: string[] }> {
  const prisma = await getPrisma();
  const world = await prisma.world.findFirst({
    where: { id, ownerSubject: owner },
    select: { characters: { select: { id: true } }, locations: { select: { id: true } } },
  });
  if (!world) throw new NotFoundError("World", id);
  const { count } = await prisma.world.deleteMany({ where: { id, ownerSubject: owner } });
  if (count === 0) throw new NotFoundError("World", id);
  // A row added between the two queries would be missed by the announcement only, not the delete.
  return { characterIds: world.characters.map((c) => c.id), locationIds: world.locations.map((l) => l.id) };
}

/** Themes this owner has used that start with `prefix` (completion). */
export async function themesOf(owner: string, prefix: string, take = 100): Promise<string[]> {
  const rows = await (await getPrisma()).world.findMany({
    where: { ownerSubject: owner, theme: startsWithText(prefix) },
    distinct: ["theme"],
    select: { theme: true },
    orderBy: { theme: "asc" },
    take,
  });
  return rows.map((r) => r.theme);
}

/** This owner's worlds whose id starts with, or whose name contains, `value` (completion). */
export async function worldsMatching(owner: string, value: string, take = 100) {
  return (await getPrisma()).world.findMany({
    where: {
      ownerSubject: owner,
      ...(value ? { OR: [{ id: startsWithExactly(value) }, { name: containsText(value) }] } : {}),
    },
    select: { id: true, name: true },
    orderBy: PAGE_ORDER,
    take,
  });
}

/** How many same-named records a lookup by name reads: enough to show the caller the choice. */
export const NAME_MATCHES = 10;

/**
 * The worlds of `owner` that `idOrName` names: the one with that id, or else every one with that
 * exact name (case-insensitive; oldest first). Names are not unique (import_world copies one), so
 * the caller decides what several mean.
 */
export async function worldsByIdOrName(owner: string, idOrName: string) {
  const prisma = await getPrisma();
  const byId = await prisma.world.findFirst({ where: { id: idOrName, ownerSubject: owner } });
  if (byId) return [byId];
  return prisma.world.findMany({ where: { ownerSubject: owner, name: equalsText(idOrName) }, orderBy: CREATION_ORDER, take: NAME_MATCHES });
}
