import { z } from "zod";
import { McpError, definePrompt, type HandlerContext } from "../../mcp";
import { ownerOf } from "../owner";
import { worldsByIdOrName, worldsMatching } from "../data/worlds";
import { charactersByIdOrName, charactersMatching } from "../data/characters";
import { locationsByIdOrName, locationsMatching } from "../data/locations";
import { Scope } from "../scopes";
import { singleLine } from "../single-line";
import { theOneNamed, uniqueNames } from "./one-named";

/**
 * Prompts that start work on one of the caller's worlds. The `world` argument (and the character
 * or location inside it) takes an id or a name; a name several records share is ambiguous and
 * answered with their ids. Completion suggests the caller's world names, then names inside the
 * chosen world, each name once.
 */

const WorldArg = singleLine().trim().min(1).max(120).describe("The world: its name or id");

/** The world a prompt names; an unknown or ambiguous one is the prompt's invalid argument (-32602). */
async function worldFor(ctx: HandlerContext, world: string) {
  const found = theOneNamed("world", world, await worldsByIdOrName(ownerOf(ctx), world));
  if (!found) throw McpError.invalidParams(`Unknown world: ${world}. Use list_worlds to see your worlds.`, [{ path: ["world"], message: "No such world" }]);
  return found;
}

const worldNames = async (value: string, ctx: HandlerContext) => uniqueNames(await worldsMatching(ownerOf(ctx), value));

/** The world chosen so far (completion context), if it names exactly one of the caller's worlds. */
async function chosenWorldId(ctx: HandlerContext, world: string | undefined): Promise<string | undefined> {
  if (!world) return undefined;
  const found = await worldsByIdOrName(ownerOf(ctx), world);
  return found.length === 1 ? found[0]!.id : undefined;
}

export const developCharacterPrompt = definePrompt({
  name: "develop-character",
  title: "Develop a character",
  description: "Flesh out a character of one of your worlds (a new one, or one that exists)",
  arguments: z.object({
    world: WorldArg,
    character: singleLine().trim().max(120).optional().describe("The character's name or id; omit to invent a new one"),
  }),
  scopes: [Scope.Read],
  complete: {
    world: (value, { ctx }) => worldNames(value, ctx),
    character: async (value, { arguments: args, ctx }) => {
      const worldId = await chosenWorldId(ctx, args.world);
      return worldId ? uniqueNames(await charactersMatching(ownerOf(ctx), value, worldId)) : [];
    },
  },
  get: async ({ world, character }, ctx) => {
    const w = await worldFor(ctx, world);
    const existing = character ? theOneNamed("character", character, await charactersByIdOrName(ownerOf(ctx), w.id, character)) : undefined;
    const about = `The world is "${w.name}" (id ${w.id}), a ${w.theme} world${w.tone ? ` with a ${w.tone} tone` : ""}.${w.description ? ` ${w.description}` : ""}`;
    const task = existing
      ? `Develop the character "${existing.name}" (id ${existing.id}${existing.role ? `, ${existing.role}` : ""}). Current traits: ${existing.traits.join(", ") || "none"}. Current backstory: ${existing.backstory || "none"}. Suggest richer traits, relationships and a backstory that fits the world, then save them with update_character.`
      : `Invent a new character${character ? ` named "${character}"` : ""} who belongs in this world: a role, a few traits and a backstory. Then save it with create_character (worldId ${w.id}).`;
    return {
      description: `Develop a character in ${w.name}`,
      messages: [{ role: "user", content: { type: "text", text: `${about}\n\n${task}` } }],
    };
  },
});

export const describeLocationPrompt = definePrompt({
  name: "describe-location",
  title: "Describe a location",
  description: "Write a vivid description of a place in one of your worlds",
  arguments: z.object({
    world: WorldArg,
    location: singleLine().trim().max(120).optional().describe("The location's name or id; omit to invent a new place"),
  }),
  scopes: [Scope.Read],
  complete: {
    world: (value, { ctx }) => worldNames(value, ctx),
    location: async (value, { arguments: args, ctx }) => {
      const worldId = await chosenWorldId(ctx, args.world);
      return worldId ? uniqueNames(await locationsMatching(ownerOf(ctx), value, worldId)) : [];
    },
  },
  get: async ({ world, location }, ctx) => {
    const w = await worldFor(ctx, world);
    const existing = location ? theOneNamed("location", location, await locationsByIdOrName(ownerOf(ctx), w.id, location)) : undefined;
    const about = `The world is "${w.name}" (id ${w.id}), a ${w.theme} world${w.tone ? ` with a ${w.tone} tone` : ""}.`;
    const task = existing
      ? `Describe "${existing.name}"${existing.kind ? ` (${existing.kind})` : ""} in vivid, concrete detail: sights, sounds, who goes there and why. It is described so far as: ${existing.description || "(nothing yet)"}.`
      : `Invent a ${location ? `place called "${location}"` : "new place"} that belongs in this world and describe it in vivid, concrete detail. Then save it with create_location (worldId ${w.id}).`;
    return {
      description: `Describe a location in ${w.name}`,
      messages: [{ role: "user", content: { type: "text", text: `${about}\n\n${task}` } }],
    };
  },
});
