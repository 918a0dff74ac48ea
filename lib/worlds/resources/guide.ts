import { defineResource, defineResourceTemplate, ownEntry, resourceNotFound } from "../../mcp";
import { WORLD_THEMES } from "../tools/draft-world-outline";

const GUIDE = `# WorldCrafter guide

A world grows from a premise, a place and a problem.

1. Start with a one-line premise (draft_world_outline helps).
2. Name things consistently: pick one naming style per culture (suggest_names).
3. Give every faction a want and a fear.
4. Leave hooks: unanswered questions are where stories start.
`;

export const guideResource = defineResource({
  uri: "worldcrafter://guide",
  name: "guide",
  title: "WorldCrafter guide",
  description: "How to build a world with WorldCrafter's tools",
  mimeType: "text/markdown",
  read: () => [{ uri: "worldcrafter://guide", mimeType: "text/markdown", text: GUIDE }],
});

const THEME_NOTES: Record<string, string> = {
  fantasy: "Magic should cost something. Maps should have edges nobody has crossed.",
  "science-fiction": "Pick one impossible technology and follow its consequences honestly.",
  steampunk: "Every machine has an owner and a union; every boiler can burst.",
  horror: "Withhold. The rule the monster follows matters more than its face.",
  "post-apocalyptic": "What survived, and who decides who gets it?",
};

export const themeNotesTemplate = defineResourceTemplate({
  uriTemplate: "worldcrafter://themes/{theme}",
  name: "theme-notes",
  title: "Theme notes",
  description: "Advice for building a world in one genre",
  mimeType: "text/markdown",
  complete: { theme: (value) => WORLD_THEMES.filter((t) => t.startsWith(value)) },
  read: (uri, { theme }) => {
    const notes = theme ? ownEntry(THEME_NOTES, theme) : undefined;
    if (!notes) throw resourceNotFound(uri, `Themes with notes: ${Object.keys(THEME_NOTES).join(", ")}.`);
    return [{ uri, mimeType: "text/markdown", text: `# ${theme}\n\n${notes}\n` }];
  },
});
