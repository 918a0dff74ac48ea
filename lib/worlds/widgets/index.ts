import type { WidgetDefinition } from "../../mcp";
import { WIDGET_HTML } from "./generated";

/**
 * WorldCrafter's widgets (sources in widgets/, built by widgets/build.mjs into ./generated).
 * None uses anything outside its own document, so their CSP lists are empty.
 */

const domain = process.env.MCP_WIDGET_DOMAIN || undefined;

export const worldCardWidget: WidgetDefinition = {
  name: "world-card",
  title: "World card",
  description: "Shows one world: its theme, tone, description, counts and first characters, with buttons to add, edit and list characters, expand it fullscreen with a graph of relations, export it as a file and delete it. The card already shows these details; do not repeat them.",
  html: WIDGET_HTML["world-card"],
  domain,
};

export const characterCardWidget: WidgetDefinition = {
  name: "character-card",
  title: "Character card",
  description: "Shows one character: role, traits, backstory and the other characters of their world, which the user can open.",
  html: WIDGET_HTML["character-card"],
  domain,
};

export const worldListWidget: WidgetDefinition = {
  name: "world-list",
  title: "World list",
  description: "Lists the user's worlds a page at a time; the user can load more, open one, and import a world file (Markdown or JSON export).",
  html: WIDGET_HTML["world-list"],
  domain,
};
