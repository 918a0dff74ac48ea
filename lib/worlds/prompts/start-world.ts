import { z } from "zod";
import { definePrompt } from "../../mcp";
import { WORLD_THEMES } from "../tools/draft-world-outline";

export const startWorldPrompt = definePrompt({
  name: "start-fantasy-world",
  title: "Start a world",
  description: "Start creating a new world with WorldCrafter",
  arguments: z.object({
    theme: z.string().max(100).optional().describe("Subgenre or theme, e.g. fantasy or steampunk"),
  }),
  complete: { theme: (value) => WORLD_THEMES.filter((t) => t.startsWith(value)) },
  get: ({ theme }) => ({
    description: "Begin a world-building session",
    messages: [
      {
        role: "user",
        content: {
          type: "text",
          text: `Help me build a new ${theme ?? "fantasy"} world. Start with draft_world_outline, then ask me which section to deepen.`,
        },
      },
    ],
  }),
});
