import { CREATION_ORDER, PAGE_ORDER, afterKey, type CursorKey } from "./cursor";
import { NAME_MATCHES } from "./worlds";
import { containsText, equalsText, startsWithExactly } from "./text-match";

/**
 * The query arguments characters and locations share: both are records of one owner inside one
 * world, read in the same orders and matched the same way. Prisma's delegates of two models cannot
 * be called through one type, so the arguments are built here and characters.ts / locations.ts
 * hand them to their own model.
 */

/** The next `take` records of a world after `after`, in creation order (exports). */
export function inCreationOrder(owner: string, worldId: string, after: CursorKey | undefined, take: number) {
  return { where: { ownerSubject: owner, worldId, ...afterKey(after, "asc") }, orderBy: CREATION_ORDER, take };
}

/** This owner's records (of one world, when given) matching `value` by id prefix or name (completion). */
export function matchingIdOrName(owner: string, value: string, worldId: string | undefined, take: number) {
  return {
    where: {
      ownerSubject: owner,
      ...(worldId ? { worldId } : {}),
      ...(value ? { OR: [{ id: startsWithExactly(value) }, { name: containsText(value) }] } : {}),
    },
    select: { id: true, name: true },
    orderBy: PAGE_ORDER,
    take,
  };
}

/** The record of a world with this id (the first half of a prompt's id-or-name lookup). */
export function withIdInWorld(owner: string, worldId: string, id: string) {
  return { where: { id, ownerSubject: owner, worldId } };
}

/** The records of a world with exactly this name, case-insensitive (the second half). */
export function namedInWorld(owner: string, worldId: string, name: string) {
  return { where: { ownerSubject: owner, worldId, name: equalsText(name) }, orderBy: CREATION_ORDER, take: NAME_MATCHES };
}
