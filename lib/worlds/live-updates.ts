import type { HandlerContext } from "../mcp";
import { uriOf } from "./records";

/**
 * Which resources a write changes (issue 24, item 5): the data tools announce them through
 * `ctx.resourcesUpdated` once the write is done, so subscribers re-read. One place maps each kind
 * of write to the URIs of the resources (lib/worlds/resources) that show what it touched.
 */

type Announcer = Pick<HandlerContext, "resourcesUpdated">;

/** A world's own resources: the world, its characters page, its two exports. */
function worldUris(worldId: string): string[] {
  return [uriOf.world(worldId), uriOf.worldCharacters(worldId), uriOf.worldExport(worldId, "md"), uriOf.worldExport(worldId, "json")];
}

/** A world was created or changed: it, and the list of worlds. */
export function worldChanged(ctx: Announcer, worldId: string): void {
  ctx.resourcesUpdated([...worldUris(worldId), uriOf.worldList]);
}

/** A world was deleted with everything in it. */
export function worldDeleted(ctx: Announcer, worldId: string, gone: { characterIds: string[]; locationIds: string[] }): void {
  ctx.resourcesUpdated([...worldUris(worldId), uriOf.worldList, ...gone.characterIds.map(uriOf.character), ...gone.locationIds.map(uriOf.location)]);
}

/** A character was created or changed: it, and its world (counts, the characters page, exports). */
export function characterChanged(ctx: Announcer, character: { id: string; worldId: string }): void {
  ctx.resourcesUpdated([uriOf.character(character.id), ...worldUris(character.worldId)]);
}

/** A location was created or changed: it, and its world (counts, exports). */
export function locationChanged(ctx: Announcer, location: { id: string; worldId: string }): void {
  ctx.resourcesUpdated([uriOf.location(location.id), uriOf.world(location.worldId), uriOf.worldExport(location.worldId, "md"), uriOf.worldExport(location.worldId, "json")]);
}
