import { z } from "zod";
import { defineTool } from "../../mcp";
import { OPEN } from "../scopes";
import { singleLine } from "../single-line";
import { NAME_STYLE_IDS, forgeNames } from "../names/name-forge";

const THEMES = {
  fantasy: { tone: "mythic", power: "old magic bound in rivers and stone", threat: "a waking wyrm beneath the capital" },
  "science-fiction": { tone: "expansive", power: "jump gates built by a vanished species", threat: "a colony AI that stopped answering" },
  steampunk: { tone: "industrious", power: "aether engines and clockwork guilds", threat: "a boiler plague choking the lower city" },
  horror: { tone: "dread", power: "pacts whispered at crossroads", threat: "a fog that takes one house each night" },
  "post-apocalyptic": { tone: "stark", power: "salvaged reactors and seed vaults", threat: "a raider king uniting the wastes" },
} as const;

export const WORLD_THEMES = Object.keys(THEMES) as (keyof typeof THEMES)[];

/** The sections of an outline, in the order they are drafted (one progress event each). */
const SECTIONS = ["premise", "geography", "history", "peoples", "factions", "power", "economy", "conflict", "hooks", "names"] as const;

export const draftWorldOutline = defineTool({
  name: "draft_world_outline",
  title: "Draft World Outline",
  description:
    "Draft a ten-section outline for a new fictional world (premise, geography, history, peoples, factions, power, economy, conflict, story hooks, names), reporting progress per section.",
  input: z.object({
    name: singleLine().min(1).max(100).describe("World name"),
    theme: z.enum(WORLD_THEMES).default("fantasy").describe("Genre/theme"),
    style: z.enum(NAME_STYLE_IDS).default("elvish").describe("Naming style for places and people"),
  }),
  // Quick (ten sections drafted at once, a progress event each, no waits), yet clients that
  // negotiated tasks may still run it as one (docs/tasks.md).
  execution: { taskSupport: "optional" },
  output: z.object({
    name: z.string(),
    theme: z.string(),
    sections: z.array(z.object({ title: z.string(), text: z.string() })),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false },
  security: OPEN,
  ui: { invoking: "Drafting your world…", invoked: "Outline drafted" },
  handler: async ({ name, theme, style }, ctx) => {
    const t = THEMES[theme];
    const places = forgeNames(style, "place", 3, name);
    const people = forgeNames(style, "person", 3, name);
    const realm = forgeNames(style, "realm", 1, name)[0] ?? name;
    const text: Record<(typeof SECTIONS)[number], string> = {
      premise: `${name} is a ${t.tone} ${theme} world.`,
      geography: `Its heart is ${places[0]}, with ${places[1]} and ${places[2]} at the edges.`,
      history: `${realm} rose three ages ago and has been fraying since.`,
      peoples: `Notable figures: ${people.join(", ")}.`,
      factions: `Three factions contend for ${realm}: the crown, the guilds and the exiles.`,
      power: `Power flows from ${t.power}.`,
      economy: `Trade runs through ${places[0]}; whoever holds it holds the purse.`,
      conflict: `The looming threat: ${t.threat}.`,
      hooks: `A message arrives at ${places[1]} for ${people[0]}, sealed with the crown's broken sigil.`,
      names: `Naming style: ${style}.`,
    };
    const sections: { title: string; text: string }[] = [];
    for (const [i, title] of SECTIONS.entries()) {
      if (ctx.signal.aborted) throw new Error("Drafting was cancelled");
      sections.push({ title, text: text[title] });
      await ctx.progress(i + 1, SECTIONS.length, `Drafted ${title}`);
    }
    return {
      content: [{ type: "text", text: sections.map((s) => `${s.title}: ${s.text}`).join("\n") }],
      structuredContent: { name, theme, sections },
    };
  },
});
