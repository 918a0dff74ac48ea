import { z } from "zod";
import { defineTool } from "../../../mcp";
import { ownerOf } from "../../owner";
import * as characters from "../../data/characters";
import { CREATES, Cursor, Id, Limit, LongText, Name, OVERWRITES, READ_ONLY, ShortText, Traits, excerpt, fitPage, fitRecord, invocation, iso, result } from "./shared";

type CharacterRow = Awaited<ReturnType<typeof characters.getCharacter>>;

function characterRecord(c: CharacterRow) {
  return { id: c.id, worldId: c.worldId, name: c.name, role: c.role, traits: c.traits, backstory: c.backstory, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) };
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
  annotations: CREATES,
  meta: invocation("Creating character…", "Character created"),
  handler: async ({ worldId, ...input }, ctx) => {
    const c = await characters.createCharacter(ownerOf(ctx), worldId, input);
    return result(`Created ${c.role ? `${c.role} ` : ""}"${c.name}", id ${c.id}.`, { character: fitRecord(characterRecord(c), ["backstory"]) });
  },
});

export const getCharacter = defineTool({
  name: "get_character",
  title: "Get Character",
  description: "Read one character with traits and backstory.",
  input: z.object({ characterId: Id.describe("The character's id") }),
  annotations: READ_ONLY,
  meta: invocation("Looking up character…", "Character found"),
  handler: async ({ characterId }, ctx) => {
    const c = await characters.getCharacter(ownerOf(ctx), characterId);
    return result(`"${c.name}"${c.role ? `, ${c.role}` : ""}.`, { character: fitRecord(characterRecord(c), ["backstory"]) });
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
  annotations: READ_ONLY,
  meta: invocation("Listing characters…", "Characters listed"),
  handler: async ({ worldId, role, cursor, limit }, ctx) => {
    const page = await characters.listCharacters(ownerOf(ctx), worldId, { role, cursor, limit });
    const { structured, count, hasMore } = fitPage(
      page.items,
      page.nextCursor,
      (c) => ({ id: c.id, name: c.name, role: c.role, traits: c.traits, summary: excerpt(c.backstory) }),
      (items, nextCursor) => ({ worldId, characters: items, ...(nextCursor ? { nextCursor } : {}) }),
    );
    const text = count === 0 ? "No characters found." : `${count} character${count === 1 ? "" : "s"}${hasMore ? "; more with nextCursor" : ""}.`;
    return result(text, structured);
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
  annotations: OVERWRITES,
  meta: invocation("Updating character…", "Character updated"),
  handler: async ({ characterId, ...changes }, ctx) => {
    const fields = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
    if (fields.length === 0) {
      return { content: [{ type: "text", text: "Nothing to update: give at least one of name, role, traits, backstory." }], isError: true };
    }
    const c = await characters.updateCharacter(ownerOf(ctx), characterId, changes);
    return result(`Updated ${fields.join(", ")} of "${c.name}".`, { character: fitRecord(characterRecord(c), ["backstory"]) });
  },
});

export const characterTools = [createCharacter, getCharacter, listCharacters, updateCharacter];
