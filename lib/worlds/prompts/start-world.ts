import { z } from "zod";
import { definePrompt, type HandlerContext } from "../../mcp";
import { Scope } from "../scopes";
import { WORLD_THEMES } from "../tools/draft-world-outline";
import { ownerOf } from "../owner";
import { themesOf } from "../data/worlds";
import { singleLine } from "../single-line";
import { FIELD_LIMITS } from "../field-limits";

/**
 * The built-in themes, then — for a signed-in caller whose token may read worlds — the caller's
 * own, that start with `value` (case-insensitive). The prompt itself is open to anyone.
 */
export async function suggestThemes(value: string, ctx: HandlerContext): Promise<string[]> {
  const prefix = value.toLowerCase();
  const builtIn = WORLD_THEMES.filter((t) => t.startsWith(prefix));
  if (!ctx.auth?.scopes.includes(Scope.Read)) return builtIn;
  const own = await themesOf(ownerOf(ctx), value);
  return [...new Set([...builtIn, ...own])];
}

export const startWorldPrompt = definePrompt({
  name: "start-fantasy-world",
  title: "Start a world",
  description: "Start creating a new world with WorldCrafter",
  arguments: z.object({
    // create_world's own limit: a longer theme made a prompt whose create_world call was refused
    // (outside probe, 2026-11-29). Blank is what hosts send for a field left empty: the default.
    theme: singleLine()
      .trim()
      .max(FIELD_LIMITS.theme)
      .optional()
      .describe(`Subgenre or theme, e.g. fantasy or steampunk (up to ${FIELD_LIMITS.theme} characters; fantasy when left empty)`),
  }),
  complete: { theme: (value, { ctx }) => suggestThemes(value, ctx) },
  get: ({ theme }) => ({
    description: "Begin a world-building session",
    messages: [
      {
        role: "user",
        content: {
          type: "text",
          text: `Help me build a new ${theme || "fantasy"} world. Start with draft_world_outline, then save it with create_world and ask me which section to deepen.`,
        },
      },
    ],
  }),
});
