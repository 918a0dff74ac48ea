import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER, afterKey, decodeCursor, pageOf, type CursorKey } from "./cursor";
import { DomainError, NotFoundError, isForeignKeyViolation } from "./errors";
import { assertWorld } from "./worlds";
import { assertRoomInWorld } from "./quotas";
import { equalsText } from "./text-match";
import { inCreationOrder, matchingIdOrName, namedInWorld, withIdInWorld } from "./record-queries";
import { MAX_LOCATION_DEPTH } from "./location-depth";

/** Locations of one owner, inside one of that owner's worlds, optionally inside another location. */

export interface LocationInput {
  name: string;
  kind?: string;
  description?: string;
  parentId?: string;
}

export async function createLocation(owner: string, worldId: string, input: LocationInput) {
  await assertWorld(owner, worldId);
  await assertRoomInWorld(worldId, 1);
  const prisma = await getPrisma();
  if (input.parentId !== undefined) {
    const parent = await prisma.location.findFirst({
      where: { id: input.parentId, ownerSubject: owner },
      select: { worldId: true, parentId: true },
    });
    if (!parent) throw new NotFoundError("Location", input.parentId);
    if (parent.worldId !== worldId) throw new DomainError(`Parent location ${JSON.stringify(input.parentId)} belongs to another world.`);
    // The parent's level: 1, plus one per ancestor, counted up to the bound (at most
    // MAX_LOCATION_DEPTH - 1 lookups; a location is created rarely and its tree stays bounded).
    let parentLevel = 1;
    for (let above = parent.parentId; above !== null && parentLevel < MAX_LOCATION_DEPTH; parentLevel++) {
      const next = await prisma.location.findFirst({ where: { id: above, ownerSubject: owner }, select: { parentId: true } });
      above = next?.parentId ?? null;
    }
    if (parentLevel >= MAX_LOCATION_DEPTH) {
      throw new DomainError(`Locations nest at most ${MAX_LOCATION_DEPTH} levels deep, and ${JSON.stringify(input.parentId)} is at the deepest level. Choose a parent higher up.`);
    }
  }
  try {
    return await prisma.location.create({ data: { ownerSubject: owner, worldId, ...input } });
  } catch (thrown) {
    // The world or the parent was deleted between the checks above and the insert (a delete_world
    // racing this call): whichever is gone is not found.
    if (!isForeignKeyViolation(thrown)) throw thrown;
    await assertWorld(owner, worldId);
    if (input.parentId === undefined) throw thrown;
    throw new NotFoundError("Location", input.parentId);
  }
}

export async function listLocations(
  owner: string,
  worldId: string,
  opts: { kind?: string; parentId?: string; cursor?: string; limit: number },
) {
  const scope = ["locations", owner, worldId, opts.kind, opts.parentId] as const;
  await assertWorld(owner, worldId);
  const rows = await (await getPrisma()).location.findMany({
    where: {
      ownerSubject: owner,
      worldId,
      ...(opts.kind ? { kind: equalsText(opts.kind) } : {}),
      ...(opts.parentId ? { parentId: opts.parentId } : {}),
      ...afterKey(decodeCursor(opts.cursor, scope)),
    },
    orderBy: PAGE_ORDER,
    take: opts.limit + 1,
  });
  return pageOf(rows, opts.limit, scope);
}

export async function getLocation(owner: string, id: string) {
  const location = await (await getPrisma()).location.findFirst({ where: { id, ownerSubject: owner } });
  if (!location) throw new NotFoundError("Location", id);
  return location;
}

/** The next `take` locations of a world after `after`, in creation order (exports). */
export async function locationsInOrder(owner: string, worldId: string, after: CursorKey | undefined, take: number) {
  return (await getPrisma()).location.findMany(inCreationOrder(owner, worldId, after, take));
}

/** This owner's locations (of one world, when given) matching `value` by id prefix or name (completion). */
export async function locationsMatching(owner: string, value: string, worldId?: string, take = 100) {
  return (await getPrisma()).location.findMany(matchingIdOrName(owner, value, worldId, take));
}

/** The locations of `owner` in `worldId` that `idOrName` names: the one with that id, or else all with that exact name (case-insensitive; prompts). */
export async function locationsByIdOrName(owner: string, worldId: string, idOrName: string) {
  const prisma = await getPrisma();
  const byId = await prisma.location.findFirst(withIdInWorld(owner, worldId, idOrName));
  if (byId) return [byId];
  return prisma.location.findMany(namedInWorld(owner, worldId, idOrName));
}
