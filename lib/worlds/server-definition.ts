import type { EndpointDefinition } from "../mcp";
import { draftWorldOutline } from "./tools/draft-world-outline";
import { suggestNames } from "./tools/suggest-names";
import { worldTools } from "./tools/data/world-tools";
import { characterTools } from "./tools/data/character-tools";
import { locationTools } from "./tools/data/location-tools";
import { exportWorldTool } from "./tools/data/export-tool";
import { knowledgeTools } from "./tools/data/knowledge-tools";
import { guideResource, themeNotesTemplate } from "./resources/guide";
import { worldResourceTemplates, worldResources } from "./resources/world-resources";
import { startWorldPrompt } from "./prompts/start-world";
import { describeLocationPrompt, developCharacterPrompt } from "./prompts/world-prompts";
import { WORLD_LOCALES } from "./i18n/narration";
import { withDatabaseErrors } from "./tools/database-errors";
import { SERVER_ICONS, withIcon } from "./icons";
import { SERVER_EXTENSIONS, withWidgetPayloadsForUiHosts } from "./host-ui";

/** The product endpoint's keys and channel in the shared store (the conformance route has its own). */
export const WORLDCRAFTER_NAMESPACE = "worldcrafter";

/** WorldCrafter as an MCP server: its identity and everything it registers. */
export const worldcrafterServer: EndpointDefinition = {
  info: { name: "worldcrafter", title: "WorldCrafter", version: "0.1.0", description: "Build fictional worlds: names, outlines, characters and places", icons: SERVER_ICONS },
  instructions:
    "WorldCrafter helps build fictional worlds. Use draft_world_outline to start a world and suggest_names for consistent names; read worldcrafter://guide for the method. Worlds, characters and locations are saved: create_world, then create_character / create_location with its id; list_* tools page with nextCursor; export_world gives a whole world as Markdown and JSON; search and fetch find anything you saved.",
  contents: {
    tools: [draftWorldOutline, suggestNames, ...[...worldTools, ...characterTools, ...locationTools, exportWorldTool, ...knowledgeTools].map(withDatabaseErrors)].map((tool) => withIcon(withWidgetPayloadsForUiHosts(tool))),
    resources: [guideResource, ...worldResources],
    resourceTemplates: [themeNotesTemplate, ...worldResourceTemplates],
    prompts: [startWorldPrompt, developCharacterPrompt, describeLocationPrompt],
  },
  locales: WORLD_LOCALES,
  extensions: SERVER_EXTENSIONS,
};
