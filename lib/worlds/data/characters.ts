import { getPrisma } from "../../db/prisma";
import { PAGE_ORDER, afterKey, decodeCursor, pageOf, type CursorKey } from "./cursor";
import { NotFoundError, isForeignKeyViolation } from "./errors";
import { assertWorld } from "./worlds";
import { assertRoomInWorld } from "./quotas";
import { equalsText } from "./text-match";
import { inCreationOrder, matchingIdOrName, namedInWorld, withIdInWorld } from "./record-queries";

/** Characters of one owner, always inside one of that owner's worlds. */

export interface CharacterInput {
  name: string;
  role?: string;
  traits?: string[];
  backstory?: string;
}

export async function createCharacter(owner: string, worldId: string, input: CharacterInput) {
  await assertWorld(owner, worldId);
  await assertRoomInWorld(worldId, 1);
  try {
    return await (await getPrisma()).character.create({ data: { ownerSubject: owner, worldId, ...input } });
  } catch (thrown) {
    // The world was deleted between the check above and the insert (a delete_world racing this call).
    if (isForeignKeyViolation(thrown)) throw new NotFoundError("World", worldId);
    throw thrown;
  }
}

export async function getCharacter(owner: string, id: string) {
  const character = await (await getPrisma()).character.findFirst({ where: { id, ownerSubject: owner } });
  if (!character) throw new NotFoundError("Character", id);
  return character;
}

/**
 * The character's world and the others who live there (the character card's relations): at most
 * `take`, newest first, in one query.
 */
export async function relationsOf(owner: string, character: { id: string; worldId: string }, take = 8) {
  const world = await (await getPrisma()).world.findFirst({
    where: { id: character.worldId, ownerSubject: owner },
    select: { id: true, name: true, characters: { where: { id: { not: character.id } }, select: { id: true, name: true, role: true }, orderBy: PAGE_ORDER, take } },
  });
  return world ? { world: { id: world.id, name: world.name }, relations: world.characters } : { relations: [] };
}

export async function listCharacters(owner: string, worldId: string, opts: { role?: string; cursor?: string; limit: number }) {
  const scope = ["characters", owner, worldId, opts.role] as const;
  await assertWorld(owner, worldId);
  const rows = await (await getPrisma()).character.findMany({
    where: {
      ownerSubject: owner,
      worldId,
      ...(opts.role ? { role: equalsText(opts.role) } : {}),
      ...afterKey(decodeCursor(opts.cursor, scope)),
    },
    orderBy: PAGE_ORDER,
    take: opts.limit + 1,
  });
  return pageOf(rows, opts.limit, scope);
}

export async function updateCharacter(owner: string, id: string, changes: Partial<CharacterInput>) {
  const { count } = await (await getPrisma()).character.updateMany({ where: { id, ownerSubject: owner }, data: changes });
  if (count === 0) throw new NotFoundError("Character", id);
  return getCharacter(owner, id);
}

/** The next `take` characters of a world after `after`, in creation order (exports). */
export async function charactersInOrder(owner: string, worldId: string, after: CursorKey | undefined, take: number) {
  return (await getPrisma()).character.findMany(inCreationOrder(owner, worldId, after, take));
}

/** This owner's characters (of one world, when given) matching `value` by id prefix or name (completion). */
export async function charactersMatching(owner: string, value: string, worldId?: string, take = 100) {
  return (await getPrisma()).character.findMany(matchingIdOrName(owner, value, worldId, take));
}

/** The characters of `owner` in `worldId` that `idOrName` names: the one with that id, or else all with that exact name (case-insensitive; prompts). */
export async function charactersByIdOrName(owner: string, worldId: string, idOrName: string) {
  const prisma = await getPrisma();
  const byId = await prisma.character.findFirst(withIdInWorld(owner, worldId, idOrName));
  if (byId) return [byId];
  return prisma.character.findMany(namedInWorld(owner, worldId, idOrName));
}
