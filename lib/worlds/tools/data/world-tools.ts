import { z } from "zod";
import { ElicitAnswerMisfit, defineTool, toolErrorResult, type HandlerContext } from "../../../mcp";
import { worldCardWidget, worldListWidget } from "../../widgets";
import { ownerOf } from "../../owner";
import * as worlds from "../../data/worlds";
import { narrate } from "../../i18n/narration";
import { worldCardRecord, worldRecord, worldWithCounts } from "../../records";
import { CLOSE_WIDGET, CREATES, Cursor, DELETES, Id, Limit, LongText, Name, OVERWRITES, READ_ONLY, ShortText, Theme, WidgetKey, excerpt, fitPage, fitRecord, iso, nothingToUpdate, result } from "./shared";
import { DeleteWorldOutput, WorldOutput, WorldPageOutput, WorldWithCountsOutput } from "./outputs";
import { READS, WRITES } from "../../scopes";
import { singleLine } from "../../single-line";
import { worldChanged, worldDeleted } from "../../live-updates";
import { activityLog } from "./activity-log";

/** The theme of a world created without one (seed 001's example call names only the world). */
export const DEFAULT_THEME = "fantasy";

export const createWorld = defineTool({
  name: "create_world",
  title: "Create World",
  description: `Create a new fictional world (a name; the theme defaults to ${DEFAULT_THEME}). Returns its id for the other tools.`,
  input: z.object({
    name: Name.describe("World name"),
    theme: Theme.default(DEFAULT_THEME).describe(`Genre or theme, e.g. fantasy, steampunk, space opera (default ${DEFAULT_THEME})`),
    description: LongText.optional().describe("A paragraph about the world"),
    tone: ShortText.optional().describe("Mood, e.g. grim, whimsical"),
  }),
  output: WorldOutput,
  annotations: CREATES,
  security: WRITES,
  ui: { widget: worldCardWidget, invoking: "Creating world…", invoked: "World created" },
  handler: async (args, ctx) => {
    const world = await worlds.createWorld(ownerOf(ctx), args);
    worldChanged(ctx, world.id);
    await activityLog.created(ctx, "world", world);
    const full = worldWithCounts({ ...world, _count: { characters: 0, locations: 0 } });
    return result(narrate(ctx).worldCreated(world.name, world.theme, world.id), { world: fitRecord(worldRecord(world), ["description"]) }, {
      [WidgetKey.World]: { ...full, characters: [], locations: [] },
    });
  },
});

export const listWorlds = defineTool({
  name: "list_worlds",
  title: "List Worlds",
  description: "List your worlds, newest first, a page at a time. Filter by theme (exact, case-insensitive) or a name substring.",
  input: z.object({
    theme: Theme.optional().describe("Only worlds with this theme"),
    nameContains: singleLine().trim().min(1).max(120).optional().describe("Only worlds whose name contains this text"),
    cursor: Cursor,
    limit: Limit,
  }),
  output: WorldPageOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { widget: worldListWidget, invoking: "Listing worlds…", invoked: "Worlds listed" },
  handler: async ({ theme, nameContains, cursor, limit }, ctx) => {
    const page = await worlds.listWorlds(ownerOf(ctx), { theme, nameContains, cursor, limit });
    const { structured, count, hasMore } = fitPage(
      page,
      (w) => ({ id: w.id, name: w.name, theme: w.theme, tone: w.tone, summary: excerpt(w.description), updatedAt: iso(w.updatedAt) }),
      (items, nextCursor) => ({ worlds: items, ...(nextCursor ? { nextCursor } : {}) }),
    );
    // The widget pages with the same filters (it calls list_worlds again with nextCursor).
    return result(narrate(ctx).worlds(count, hasMore), structured, { [WidgetKey.Query]: { theme, nameContains, limit } });
  },
});

export const getWorld = defineTool({
  name: "get_world",
  title: "Get World",
  description: "Read one world with its description and how many characters and locations it has.",
  input: z.object({ worldId: Id.describe("The world's id") }),
  output: WorldWithCountsOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { widget: worldCardWidget, invoking: "Opening world…", invoked: "World opened" },
  handler: async ({ worldId }, ctx) => {
    const w = await worlds.getWorldCard(ownerOf(ctx), worldId);
    const full = worldWithCounts(w);
    return result(
      narrate(ctx).worldRead(w.name, w.theme, w._count.characters, w._count.locations),
      { world: fitRecord(full, ["description"]) },
      // The world card shows the first few characters and places; the model needs only the counts.
      { [WidgetKey.World]: worldCardRecord(w) },
    );
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
  output: WorldWithCountsOutput,
  annotations: OVERWRITES,
  security: WRITES,
  ui: { widget: worldCardWidget, invoking: "Updating world…", invoked: "World updated" },
  handler: async ({ worldId, ...changes }, ctx) => {
    const fields = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
    if (fields.length === 0) return nothingToUpdate(ctx, ["name", "theme", "description", "tone"]);
    const w = await worlds.updateWorld(ownerOf(ctx), worldId, changes);
    worldChanged(ctx, w.id);
    await activityLog.updated(ctx, "world", w, fields);
    const full = worldWithCounts(w);
    // The same widget preview as get_world's: without it the card said "No characters yet." beside the count.
    return result(narrate(ctx).updated(fields, w.name), { world: fitRecord(full, ["description"]) }, { [WidgetKey.World]: worldCardRecord(w) });
  },
});

/** Deletes a world the user confirmed, then tells its subscribers and the client's log. */
async function removeWorld(ctx: HandlerContext, owner: string, world: { id: string; name: string }): Promise<void> {
  const went = await worlds.deleteWorld(owner, world.id);
  worldDeleted(ctx, world.id, went);
  await activityLog.worldDeleted(ctx, world, went);
}

const ConfirmSchema = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Delete permanently", description: "Check to delete the world and everything in it" } },
  required: ["confirm"],
};

/** Why delete_world kept the world, as its output names it. */
type KeptReason = NonNullable<z.output<typeof DeleteWorldOutput>["reason"]>;

export const deleteWorld = defineTool({
  name: "delete_world",
  title: "Delete World",
  description:
    "Permanently delete a world with all its characters and locations. The user is asked to confirm first: by the client (elicitation), or — where the client cannot ask — by the host before the call, and then `confirmName` must repeat the world's exact name.",
  input: z.object({
    worldId: Id.describe("The world's id"),
    confirmName: Name.optional().describe("For clients that cannot ask the user (no elicitation): the world's exact name, once the user has confirmed the deletion"),
  }),
  output: DeleteWorldOutput,
  annotations: DELETES,
  security: WRITES,
  ui: { invoking: "Deleting world…", invoked: "Delete finished" },
  handler: async ({ worldId, confirmName }, ctx) => {
    const owner = ownerOf(ctx);
    const say = narrate(ctx);
    // Read-only until the user has answered: in 2026-07-28 the handler reruns from the top.
    const w = await worlds.getWorld(owner, worldId);
    if (!ctx.canAsk("elicitation/create", "form")) {
      // No form can reach the user now (not declared, URL mode only, not initialized yet, an
      // answer that cannot stream). ChatGPT and other hosts ask the user themselves before a
      // destructive tool (its annotations); the exact name on top keeps a model from deleting by
      // a stray id.
      if (confirmName !== w.name) return toolErrorResult("confirmation_required", say.deleteNeedsConfirmation(w.name));
      await removeWorld(ctx, owner, w);
      return result(say.deleted(w.name), { deleted: true, worldId, name: w.name }, CLOSE_WIDGET);
    }
    const answer = await ctx
      .elicit({ mode: "form", message: say.confirmDelete(w.name, w._count.characters, w._count.locations), requestedSchema: ConfirmSchema }, { key: "confirm_delete" })
      // An accepted form that does not fit (the box left out, "yes" for true) confirmed nothing:
      // kept, as an unticked box is, rather than the call failing on the person's answer.
      .catch((thrown: unknown) => {
        if (thrown instanceof ElicitAnswerMisfit) return { action: "accept" as const, content: { confirm: false } };
        throw thrown;
      });
    if (answer.action !== "accept" || answer.content?.confirm !== true) {
      const reason: KeptReason = answer.action === "accept" ? "not_confirmed" : answer.action === "decline" ? "declined" : "cancelled";
      return result(say.kept(w.name, reason), { deleted: false, worldId, reason });
    }
    await removeWorld(ctx, owner, w);
    return result(say.deleted(w.name), { deleted: true, worldId, name: w.name }, CLOSE_WIDGET);
  },
});

export const worldTools = [createWorld, listWorlds, getWorld, updateWorld, deleteWorld];
