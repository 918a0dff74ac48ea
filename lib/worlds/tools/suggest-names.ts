import { z } from "zod";
import { defineTool } from "../../mcp";
import { OPEN } from "../scopes";
import { NAME_KINDS, NAME_STYLE_IDS, forgeNames } from "../names/name-forge";
import { narrate } from "../i18n/narration";

export const suggestNames = defineTool({
  name: "suggest_names",
  title: "Suggest Names",
  description:
    "Suggest fantasy names for people, places or realms in a given style. Deterministic: the same seed returns the same names.",
  input: z.object({
    style: z.enum(NAME_STYLE_IDS).describe("Naming style (culture) of the names"),
    kind: z.enum(NAME_KINDS).default("person").describe("What is being named"),
    count: z.number().int().min(1).max(20).default(5).describe("How many names (1-20)"),
    seed: z.string().max(100).optional().describe("Any text; the same seed gives the same names"),
  }),
  output: z.object({ style: z.string(), kind: z.string(), names: z.array(z.string()) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false },
  security: OPEN,
  ui: { invoking: "Forging names…", invoked: "Names ready" },
  handler: ({ style, kind, count, seed }, ctx) => {
    const names = forgeNames(style, kind, count, seed ?? "worldcrafter");
    return {
      content: [{ type: "text", text: narrate(ctx).namesSuggested(style, kind, names) }],
      structuredContent: { style, kind, names },
    };
  },
});
