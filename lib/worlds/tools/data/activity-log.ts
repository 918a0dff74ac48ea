import type { HandlerContext } from "../../../mcp";

/**
 * The notifications/message the product's tools send (docs/tools.md lists them): what a call
 * changed, by name and id, so a client that asked for logs can follow along. Only what the user
 * typed or the server made (names, ids, counts, sizes) — never tokens or account details. The core
 * drops a message below the client's level (logging/setLevel, or 2026-07-28's `_meta` logLevel),
 * and all of them for a client that chose no level: a log line would turn its plain JSON answer
 * into an event stream (curl, seed 001's example call).
 */

const LOGGER = "worldcrafter";
const OPTIONS = { askedOnly: true };

type Kind = "world" | "character" | "location";

/** "1 character", "3 locations". */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

interface Named {
  id: string;
  name: string;
}

export const activityLog = {
  created: (ctx: HandlerContext, kind: Kind, record: Named) => ctx.log("info", `Created ${kind} ${JSON.stringify(record.name)} (id ${record.id})`, LOGGER, OPTIONS),

  updated: (ctx: HandlerContext, kind: Kind, record: Named, fields: readonly string[]) =>
    ctx.log("info", `Updated ${kind} ${JSON.stringify(record.name)} (id ${record.id}): ${fields.join(", ")}`, LOGGER, OPTIONS),

  worldDeleted: (ctx: HandlerContext, world: Named, went: { characterIds: readonly string[]; locationIds: readonly string[] }) =>
    ctx.log("info", `Deleted world ${JSON.stringify(world.name)} (id ${world.id}) with ${count(went.characterIds.length, "character")} and ${count(went.locationIds.length, "location")}`, LOGGER, OPTIONS),

  exported: (ctx: HandlerContext, world: Named, counts: { characters: number; locations: number }, bytes: { markdown: number; json: number }) =>
    ctx.log(
      "info",
      `Exported world ${JSON.stringify(world.name)} (id ${world.id}): ${count(counts.characters, "character")}, ${count(counts.locations, "location")}; Markdown ${bytes.markdown} bytes, JSON ${bytes.json} bytes`,
      LOGGER,
      OPTIONS,
    ),

  importRead: (ctx: HandlerContext, format: string, bytes: number) => ctx.log("debug", `Read a ${bytes}-byte world file as ${format}`, LOGGER, OPTIONS),

  imported: (ctx: HandlerContext, world: Named, counts: { characters: number; locations: number }) =>
    ctx.log("info", `Imported world ${JSON.stringify(world.name)} (id ${world.id}): ${count(counts.characters, "character")}, ${count(counts.locations, "location")}`, LOGGER, OPTIONS),

  /** An import that gave the new world a name another of the caller's worlds has: prompts by name then need the id. */
  importNameShared: (ctx: HandlerContext, world: Named, others: readonly string[]) =>
    ctx.log(
      "warning",
      `The imported world ${JSON.stringify(world.name)} (id ${world.id}) has the name of ${others.length === 1 ? "another world" : `${others.length} other worlds`} of yours (id ${others.join(", ")}); rename one (update_world) or name it by id`,
      LOGGER,
      OPTIONS,
    ),
};
