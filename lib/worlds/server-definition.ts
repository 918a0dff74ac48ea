import type { EndpointDefinition } from "../mcp";
import { draftWorldOutline } from "./tools/draft-world-outline";
import { suggestNames } from "./tools/suggest-names";
import { guideResource, themeNotesTemplate } from "./resources/guide";
import { startWorldPrompt } from "./prompts/start-world";

/** WorldCrafter as an MCP server: its identity and everything it registers. */
export const worldcrafterServer: EndpointDefinition = {
  info: { name: "worldcrafter", title: "WorldCrafter", version: "0.1.0", description: "Build fictional worlds: names, outlines, characters and places" },
  instructions:
    "WorldCrafter helps build fictional worlds. Use draft_world_outline to start a world and suggest_names for consistent names; read worldcrafter://guide for the method.",
  contents: {
    tools: [draftWorldOutline, suggestNames],
    resources: [guideResource],
    resourceTemplates: [themeNotesTemplate],
    prompts: [startWorldPrompt],
  },
};
