import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER, afterKey, decodeCursor, pageOf } from "./cursor";
import { DomainError, NotFoundError } from "./errors";
import { assertWorld } from "./worlds";

/** Locations of one owner, inside one of that owner's worlds, optionally inside another location. */

export interface LocationInput {
  name: string;
  kind?: string;
  description?: string;
  parentId?: string;
}

export async function createLocation(owner: string, worldId: string, input: LocationInput) {
  await assertWorld(owner, worldId);
  if (input.parentId !== undefined) {
    const parent = await getPrisma().location.findFirst({
      where: { id: input.parentId, ownerSubject: owner },
      select: { worldId: true },
    });
    if (!parent) throw new NotFoundError("Location", input.parentId);
    if (parent.worldId !== worldId) throw new DomainError(`Parent location ${JSON.stringify(input.parentId)} belongs to another world.`);
  }
  return getPrisma().location.create({ data: { ownerSubject: owner, worldId, ...input } });
}

export async function listLocations(
  owner: string,
  worldId: string,
  opts: { kind?: string; parentId?: string; cursor?: string; limit: number },
) {
  await assertWorld(owner, worldId);
  const rows = await getPrisma().location.findMany({
    where: {
      ownerSubject: owner,
      worldId,
      ...(opts.kind ? { kind: { equals: opts.kind, mode: "insensitive" as const } } : {}),
      ...(opts.parentId ? { parentId: opts.parentId } : {}),
      ...afterKey(decodeCursor(opts.cursor)),
    },
    orderBy: PAGE_ORDER,
    take: opts.limit + 1,
  });
  return pageOf(rows, opts.limit);
}
