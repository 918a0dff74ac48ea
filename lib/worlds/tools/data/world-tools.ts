import { z } from "zod";
import { defineTool } from "../../../mcp";
import { ownerOf } from "../../owner";
import * as worlds from "../../data/worlds";
import { CREATES, Cursor, DELETES, Id, Limit, LongText, Name, OVERWRITES, READ_ONLY, ShortText, Theme, excerpt, fitPage, fitRecord, invocation, iso, result } from "./shared";

type WorldRow = Awaited<ReturnType<typeof worlds.createWorld>>;

function worldRecord(w: WorldRow) {
  return { id: w.id, name: w.name, theme: w.theme, tone: w.tone, description: w.description, createdAt: iso(w.createdAt), updatedAt: iso(w.updatedAt) };
}

function worldWithCounts(w: WorldRow & { _count: { characters: number; locations: number } }) {
  return { ...worldRecord(w), counts: { characters: w._count.characters, locations: w._count.locations } };
}

export const createWorld = defineTool({
  name: "create_world",
  title: "Create World",
  description: "Create a new fictional world (name and theme required). Returns its id for the other tools.",
  input: z.object({
    name: Name.describe("World name"),
    theme: Theme.describe("Genre or theme, e.g. fantasy, steampunk, space opera"),
    description: LongText.optional().describe("A paragraph about the world"),
    tone: ShortText.optional().describe("Mood, e.g. grim, whimsical"),
  }),
  annotations: CREATES,
  meta: invocation("Creating world…", "World created"),
  handler: async (args, ctx) => {
    const world = await worlds.createWorld(ownerOf(ctx), args);
    return result(`Created world "${world.name}" (${world.theme}), id ${world.id}.`, { world: fitRecord(worldRecord(world), ["description"]) });
  },
});

export const listWorlds = defineTool({
  name: "list_worlds",
  title: "List Worlds",
  description: "List your worlds, newest first, a page at a time. Filter by theme (exact, case-insensitive) or a name substring.",
  input: z.object({
    theme: Theme.optional().describe("Only worlds with this theme"),
    nameContains: z.string().trim().min(1).max(120).optional().describe("Only worlds whose name contains this text"),
    cursor: Cursor,
    limit: Limit,
  }),
  annotations: READ_ONLY,
  meta: invocation("Listing worlds…", "Worlds listed"),
  handler: async ({ theme, nameContains, cursor, limit }, ctx) => {
    const page = await worlds.listWorlds(ownerOf(ctx), { theme, nameContains, cursor, limit });
    const { structured, count, hasMore } = fitPage(
      page.items,
      page.nextCursor,
      (w) => ({ id: w.id, name: w.name, theme: w.theme, tone: w.tone, summary: excerpt(w.description), updatedAt: iso(w.updatedAt) }),
      (items, nextCursor) => ({ worlds: items, ...(nextCursor ? { nextCursor } : {}) }),
    );
    const text = count === 0 ? "No worlds found." : `${count} world${count === 1 ? "" : "s"}${hasMore ? "; more with nextCursor" : ""}.`;
    return result(text, structured);
  },
});

export const getWorld = defineTool({
  name: "get_world",
  title: "Get World",
  description: "Read one world with its description and how many characters and locations it has.",
  input: z.object({ worldId: Id.describe("The world's id") }),
  annotations: READ_ONLY,
  meta: invocation("Opening world…", "World opened"),
  handler: async ({ worldId }, ctx) => {
    const w = await worlds.getWorld(ownerOf(ctx), worldId);
    return result(`"${w.name}" (${w.theme}): ${w._count.characters} characters, ${w._count.locations} locations.`, {
      world: fitRecord(worldWithCounts(w), ["description"]),
    });
  },
});

export const updateWorld = defineTool({
  name: "update_world",
  title: "Update World",
  description: "Change a world's name, theme, description or tone. Only the fields given change; they replace the old values.",
  input: z.object({
    worldId: Id.describe("The world's id"),
    name: Name.optional(),
    theme: Theme.optional(),
    description: LongText.optional(),
    tone: ShortText.optional(),
  }),
  annotations: OVERWRITES,
  meta: invocation("Updating world…", "World updated"),
  handler: async ({ worldId, ...changes }, ctx) => {
    const fields = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
    if (fields.length === 0) {
      return { content: [{ type: "text", text: "Nothing to update: give at least one of name, theme, description, tone." }], isError: true };
    }
    const w = await worlds.updateWorld(ownerOf(ctx), worldId, changes);
    return result(`Updated ${fields.join(", ")} of "${w.name}".`, {
      world: fitRecord(worldWithCounts(w), ["description"]),
    });
  },
});

const ConfirmSchema = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Delete permanently", description: "Check to delete the world and everything in it" } },
  required: ["confirm"],
};

export const deleteWorld = defineTool({
  name: "delete_world",
  title: "Delete World",
  description: "Permanently delete a world with all its characters and locations. The user is asked to confirm first.",
  input: z.object({ worldId: Id.describe("The world's id") }),
  annotations: DELETES,
  meta: invocation("Deleting world…", "Delete finished"),
  handler: async ({ worldId }, ctx) => {
    const owner = ownerOf(ctx);
    // Read-only until the user has answered: in 2026-07-28 the handler reruns from the top.
    const w = await worlds.getWorld(owner, worldId);
    if (ctx.clientCapabilities.elicitation === undefined) {
      return {
        content: [{ type: "text", text: `Not deleted: "${w.name}" can only be deleted from a client that can ask the user to confirm (elicitation).` }],
        isError: true,
      };
    }
    const answer = await ctx.elicit(
      {
        mode: "form",
        message: `Delete the world "${w.name}" with its ${w._count.characters} characters and ${w._count.locations} locations? This cannot be undone.`,
        requestedSchema: ConfirmSchema,
      },
      { key: "confirm_delete" },
    );
    if (answer.action !== "accept" || answer.content?.confirm !== true) {
      const reason = answer.action === "accept" ? "not confirmed" : answer.action === "decline" ? "declined" : "cancelled";
      return result(`Kept "${w.name}": the user ${reason === "not confirmed" ? "did not confirm" : reason}.`, { deleted: false, worldId, reason });
    }
    await worlds.deleteWorld(owner, worldId);
    return result(`Deleted "${w.name}" and everything in it.`, { deleted: true, worldId, name: w.name });
  },
});

export const worldTools = [createWorld, listWorlds, getWorld, updateWorld, deleteWorld];
