import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER, afterKey, decodeCursor, pageOf } from "./cursor";
import { NotFoundError } from "./errors";

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
  return getPrisma().world.create({ data: { ownerSubject: owner, ...input } });
}

export async function listWorlds(owner: string, filter: WorldFilter) {
  const rows = await getPrisma().world.findMany({
    where: {
      ownerSubject: owner,
      ...(filter.theme ? { theme: { equals: filter.theme, mode: "insensitive" as const } } : {}),
      ...(filter.nameContains ? { name: { contains: filter.nameContains, mode: "insensitive" as const } } : {}),
      ...afterKey(decodeCursor(filter.cursor)),
    },
    orderBy: PAGE_ORDER,
    take: filter.limit + 1,
  });
  return pageOf(rows, filter.limit);
}

export async function getWorld(owner: string, id: string) {
  const world = await getPrisma().world.findFirst({
    where: { id, ownerSubject: owner },
    include: { _count: { select: { characters: true, locations: true } } },
  });
  if (!world) throw new NotFoundError("World", id);
  return world;
}

/** Throws NotFoundError unless `id` is a world of `owner`. */
export async function assertWorld(owner: string, id: string): Promise<void> {
  const found = await getPrisma().world.findFirst({ where: { id, ownerSubject: owner }, select: { id: true } });
  if (!found) throw new NotFoundError("World", id);
}

export async function updateWorld(owner: string, id: string, changes: Partial<WorldInput>) {
  // updateMany carries the owner filter; the count tells a foreign or missing id apart from success.
  const { count } = await getPrisma().world.updateMany({ where: { id, ownerSubject: owner }, data: changes });
  if (count === 0) throw new NotFoundError("World", id);
  return getWorld(owner, id);
}

/** Deletes the world with its characters and locations (cascade). */
export async function deleteWorld(owner: string, id: string): Promise<void> {
  const { count } = await getPrisma().world.deleteMany({ where: { id, ownerSubject: owner } });
  if (count === 0) throw new NotFoundError("World", id);
}
