import { defineResource, defineResourceTemplate, resourceNotFound, type HandlerContext, type ResourceContents } from "../../mcp";
import { ownerOf } from "../owner";
import { NotFoundError } from "../data/errors";
import * as worlds from "../data/worlds";
import * as characters from "../data/characters";
import * as locations from "../data/locations";
import { exportWorld } from "../export/world-export";
import { EXPORT_TOOL_NAME } from "../export/export-tool-name";
import { characterRecord, locationRecord, uriOf, worldCardRecord } from "../records";
import { Scope } from "../scopes";

/** Every resource here is someone's data: reading one needs the read scope. */
const scopes = [Scope.Read];

/**
 * WorldCrafter's records as JSON resources, scoped to the caller like the tools: another user's id
 * is "not found" (-32002), exactly as a missing one.
 */

const JSON_MIME = "application/json";
/** Resource reads list at most this many rows; the list tools page through the rest. */
const READ_LIMIT = 100;

function json(uri: string, value: unknown): ResourceContents[] {
  return [{ uri, mimeType: JSON_MIME, text: JSON.stringify(value) }];
}

/**
 * Where the valid ids are. One text for every kind and id: another user's record must read exactly
 * as a missing one (subject isolation), so the message never quotes the id.
 */
const FIND_IDS = `Use list_worlds (or read ${uriOf.worldList}) to see your worlds, and list_characters or list_locations for what is in them.`;

/** Runs a read; a record the caller cannot see becomes resources' own not-found error, saying where the valid ids are. */
async function orNotFound<T>(uri: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (thrown) {
    if (thrown instanceof NotFoundError) throw resourceNotFound(uri, FIND_IDS);
    throw thrown;
  }
}

const worldIds = async (value: string, ctx: HandlerContext) => (await worlds.worldsMatching(ownerOf(ctx), value)).map((w) => w.id);

export const worldListResource = defineResource({
  uri: uriOf.worldList,
  name: "worlds",
  title: "Your worlds",
  description: "The worlds you have created, newest first (up to 100; list_worlds pages through more)",
  mimeType: JSON_MIME,
  scopes,
  read: async (ctx) => {
    const page = await worlds.listWorlds(ownerOf(ctx), { limit: READ_LIMIT });
    const items = page.items.map((w) => ({ id: w.id, name: w.name, theme: w.theme, tone: w.tone, updatedAt: w.updatedAt.toISOString(), uri: uriOf.world(w.id) }));
    return json(uriOf.worldList, { worlds: items, more: page.nextCursor !== undefined });
  },
});

export const worldTemplate = defineResourceTemplate({
  uriTemplate: "world://{worldId}",
  name: "world",
  title: "World",
  description: "One world with its counts and its first characters and locations",
  mimeType: JSON_MIME,
  scopes,
  complete: { worldId: (value, { ctx }) => worldIds(value, ctx) },
  read: async (uri, { worldId = "" }, ctx) => {
    const w = await orNotFound(uri, () => worlds.getWorldCard(ownerOf(ctx), worldId));
    return json(uri, worldCardRecord(w));
  },
});

export const worldCharactersTemplate = defineResourceTemplate({
  uriTemplate: "world://{worldId}/characters",
  name: "world-characters",
  title: "Characters of a world",
  description: "The characters of one world, newest first (up to 100)",
  mimeType: JSON_MIME,
  scopes,
  complete: { worldId: (value, { ctx }) => worldIds(value, ctx) },
  read: async (uri, { worldId = "" }, ctx) => {
    const page = await orNotFound(uri, () => characters.listCharacters(ownerOf(ctx), worldId, { limit: READ_LIMIT }));
    return json(uri, { worldId, characters: page.items.map(characterRecord), more: page.nextCursor !== undefined });
  },
});

const EXPORT_FORMATS = ["md", "json"] as const;

export const worldExportTemplate = defineResourceTemplate({
  uriTemplate: "world://{worldId}/export.{format}",
  name: "world-export",
  title: "World export",
  description: "A whole world as Markdown (export.md) or JSON (export.json), as export_world makes it",
  scopes,
  spendsToolBudget: EXPORT_TOOL_NAME,
  complete: {
    worldId: (value, { ctx }) => worldIds(value, ctx),
    format: (value) => EXPORT_FORMATS.filter((f) => f.startsWith(value)),
  },
  read: async (uri, { worldId = "", format = "" }, ctx) => {
    if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw resourceNotFound(uri, `Export formats: ${EXPORT_FORMATS.join(", ")}.`);
    const exported = await orNotFound(uri, () => exportWorld(ownerOf(ctx), worldId, { signal: ctx.signal }));
    return format === "md"
      ? [{ uri, mimeType: "text/markdown", text: exported.markdown }]
      : [{ uri, mimeType: JSON_MIME, text: exported.json }];
  },
});

export const characterTemplate = defineResourceTemplate({
  uriTemplate: "character://{characterId}",
  name: "character",
  title: "Character",
  description: "One character with traits and backstory",
  mimeType: JSON_MIME,
  scopes,
  complete: { characterId: async (value, { ctx }) => (await characters.charactersMatching(ownerOf(ctx), value)).map((c) => c.id) },
  read: async (uri, { characterId = "" }, ctx) => json(uri, characterRecord(await orNotFound(uri, () => characters.getCharacter(ownerOf(ctx), characterId)))),
});

export const locationTemplate = defineResourceTemplate({
  uriTemplate: "location://{locationId}",
  name: "location",
  title: "Location",
  description: "One location with its description and the place it is in",
  mimeType: JSON_MIME,
  scopes,
  complete: { locationId: async (value, { ctx }) => (await locations.locationsMatching(ownerOf(ctx), value)).map((l) => l.id) },
  read: async (uri, { locationId = "" }, ctx) => json(uri, locationRecord(await orNotFound(uri, () => locations.getLocation(ownerOf(ctx), locationId)))),
});

export const worldResources = [worldListResource];
export const worldResourceTemplates = [worldTemplate, worldCharactersTemplate, worldExportTemplate, characterTemplate, locationTemplate];
