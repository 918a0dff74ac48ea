import { z } from "zod";
import { defineTool } from "../../../mcp";
import { characterCardWidget } from "../../widgets";
import { ownerOf } from "../../owner";
import * as characters from "../../data/characters";
import { narrate } from "../../i18n/narration";
import { characterRecord } from "../../records";
import { CREATES, Cursor, Id, Limit, LongText, Name, OVERWRITES, READ_ONLY, ShortText, Traits, WidgetKey, excerpt, fitPage, fitRecord, nothingToUpdate, result } from "./shared";
import { CharacterOutput, CharacterPageOutput } from "./outputs";
import { READS, WRITES } from "../../scopes";
import { characterChanged } from "../../live-updates";
import { activityLog } from "./activity-log";

type CharacterRow = Awaited<ReturnType<typeof characters.getCharacter>>;

/**
 * The concise record for the model (a long backstory is cut); the widget also gets the full one
 * with the character's world and the others there (the card's relations).
 */
async function characterResult(text: string, c: CharacterRow, owner: string) {
  const full = characterRecord(c);
  return result(text, { character: fitRecord(full, ["backstory"]) }, { [WidgetKey.Character]: { ...full, ...(await characters.relationsOf(owner, c)) } });
}

export const createCharacter = defineTool({
  name: "create_character",
  title: "Create Character",
  description: "Add a character to one of your worlds.",
  input: z.object({
    worldId: Id.describe("The world the character lives in"),
    name: Name.describe("Character name"),
    role: ShortText.optional().describe("Role in the story, e.g. protagonist, mentor, villain"),
    traits: Traits.optional().describe("Up to 12 short traits"),
    backstory: LongText.optional().describe("A paragraph of backstory"),
  }),
  output: CharacterOutput,
  annotations: CREATES,
  security: WRITES,
  ui: { widget: characterCardWidget, invoking: "Creating character…", invoked: "Character created" },
  handler: async ({ worldId, ...input }, ctx) => {
    const c = await characters.createCharacter(ownerOf(ctx), worldId, input);
    characterChanged(ctx, c);
    await activityLog.created(ctx, "character", c);
    return characterResult(narrate(ctx).characterCreated(c.name, c.role, c.id), c, ownerOf(ctx));
  },
});

export const getCharacter = defineTool({
  name: "get_character",
  title: "Get Character",
  description: "Read one character with traits and backstory.",
  input: z.object({ characterId: Id.describe("The character's id") }),
  output: CharacterOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { widget: characterCardWidget, invoking: "Looking up character…", invoked: "Character found" },
  handler: async ({ characterId }, ctx) => {
    const c = await characters.getCharacter(ownerOf(ctx), characterId);
    return characterResult(narrate(ctx).characterRead(c.name, c.role), c, ownerOf(ctx));
  },
});

export const listCharacters = defineTool({
  name: "list_characters",
  title: "List Characters",
  description: "List the characters of a world, newest first, a page at a time; optionally only one role.",
  input: z.object({
    worldId: Id.describe("The world's id"),
    role: ShortText.min(1).optional().describe("Only characters with this role"),
    cursor: Cursor,
    limit: Limit,
  }),
  output: CharacterPageOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Listing characters…", invoked: "Characters listed" },
  handler: async ({ worldId, role, cursor, limit }, ctx) => {
    const page = await characters.listCharacters(ownerOf(ctx), worldId, { role, cursor, limit });
    const { structured, count, hasMore } = fitPage(
      page,
      (c) => ({ id: c.id, name: c.name, role: c.role, traits: c.traits, summary: excerpt(c.backstory) }),
      (items, nextCursor) => ({ worldId, characters: items, ...(nextCursor ? { nextCursor } : {}) }),
    );
    return result(narrate(ctx).characters(count, hasMore), structured, { [WidgetKey.Query]: { worldId, role, limit } });
  },
});

export const updateCharacter = defineTool({
  name: "update_character",
  title: "Update Character",
  description: "Change a character's name, role, traits or backstory. Only the fields given change; they replace the old values (traits as a whole list).",
  input: z.object({
    characterId: Id.describe("The character's id"),
    name: Name.optional(),
    role: ShortText.optional(),
    traits: Traits.optional(),
    backstory: LongText.optional(),
  }),
  output: CharacterOutput,
  annotations: OVERWRITES,
  security: WRITES,
  ui: { widget: characterCardWidget, invoking: "Updating character…", invoked: "Character updated" },
  handler: async ({ characterId, ...changes }, ctx) => {
    const fields = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
    if (fields.length === 0) return nothingToUpdate(ctx, ["name", "role", "traits", "backstory"]);
    const c = await characters.updateCharacter(ownerOf(ctx), characterId, changes);
    characterChanged(ctx, c);
    await activityLog.updated(ctx, "character", c, fields);
    return characterResult(narrate(ctx).updated(fields, c.name), c, ownerOf(ctx));
  },
});

export const characterTools = [createCharacter, getCharacter, listCharacters, updateCharacter];
