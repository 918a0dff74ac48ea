import { loadEnv } from "../../config/env";
import { getPrisma } from "../../db/prisma";
import { DomainError } from "./errors";

/**
 * What one account may keep: MCP_MAX_WORLDS_PER_USER worlds, and MCP_MAX_RECORDS_PER_WORLD
 * characters and locations together in one world. The rate limits bound how fast an account
 * writes, not how much it keeps: an outside audit's import_world calls added 2,000 rows each, 60
 * a minute. Checked before each write, so calls racing at the bound may pass it by as many as
 * there are of them (imports in flight, bounded by the rate limits): it stops growth, it is not an
 * exact count. Counts stop at the bound, so their cost stays bounded too.
 */
export class QuotaExceeded extends DomainError {
  override name = "QuotaExceeded";
  constructor(message: string) {
    super(message, "quota_exceeded");
  }
}

/** A new world fits under its owner's bound, or QuotaExceeded. */
export async function assertRoomForWorld(owner: string): Promise<void> {
  const max = loadEnv().MCP_MAX_WORLDS_PER_USER;
  // Counted up to the bound and no further: the answer is the same, and the cost stays bounded.
  const count = await (await getPrisma()).world.count({ where: { ownerSubject: owner }, take: max });
  if (count >= max) {
    throw new QuotaExceeded(`You already keep ${max} worlds, the most one account may have here. Delete a world you no longer need (delete_world), then try again.`);
  }
}

/** `adding` more characters and locations fit in the (existing) world, or QuotaExceeded. */
export async function assertRoomInWorld(worldId: string, adding: number): Promise<void> {
  const max = loadEnv().MCP_MAX_RECORDS_PER_WORLD;
  const prisma = await getPrisma();
  const [characters, locations] = await Promise.all([prisma.character.count({ where: { worldId }, take: max }), prisma.location.count({ where: { worldId }, take: max })]);
  if (characters + locations + adding > max) {
    throw new QuotaExceeded(`This world already holds as many characters and locations as one world may have here (${max} together). Start another world for more.`);
  }
}

/** A file's characters and locations fit in one world, or QuotaExceeded (nothing is read from the database). */
export function assertImportFits(records: number): void {
  const max = loadEnv().MCP_MAX_RECORDS_PER_WORLD;
  if (records > max) throw new QuotaExceeded(`The file holds ${records} characters and locations, more than one world may have here (${max}).`);
}
