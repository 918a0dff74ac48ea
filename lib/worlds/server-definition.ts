import type { EndpointDefinition } from "../mcp";
import { draftWorldOutline } from "./tools/draft-world-outline";
import { suggestNames } from "./tools/suggest-names";
import { worldTools } from "./tools/data/world-tools";
import { characterTools } from "./tools/data/character-tools";
import { locationTools } from "./tools/data/location-tools";
import { guideResource, themeNotesTemplate } from "./resources/guide";
import { startWorldPrompt } from "./prompts/start-world";

/** WorldCrafter as an MCP server: its identity and everything it registers. */
export const worldcrafterServer: EndpointDefinition = {
  info: { name: "worldcrafter", title: "WorldCrafter", version: "0.1.0", description: "Build fictional worlds: names, outlines, characters and places" },
  instructions:
    "WorldCrafter helps build fictional worlds. Use draft_world_outline to start a world and suggest_names for consistent names; read worldcrafter://guide for the method. Worlds, characters and locations are saved: create_world, then create_character / create_location with its id; list_* tools page with nextCursor.",
  contents: {
    tools: [draftWorldOutline, suggestNames, ...worldTools, ...characterTools, ...locationTools],
    resources: [guideResource],
    resourceTemplates: [themeNotesTemplate],
    prompts: [startWorldPrompt],
  },
};
