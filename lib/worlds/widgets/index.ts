import type { WidgetDefinition } from "../../mcp";
import { configuredOrigin } from "../../auth/auth-settings";
import { WIDGET_HTML } from "./generated";

/**
 * WorldCrafter's widgets (sources in widgets/, built by widgets/build.mjs into ./generated).
 * None loads anything outside its own document, so their connect and resource lists are empty.
 * The world card opens export download links (GET /api/files/<token>, lib/worlds/files) on the
 * app's own origin with openExternal: that origin is its redirect domain, so ChatGPT opens it
 * without a detour (`openai/widgetCSP.redirect_domains`). MCP Apps has no such list: its hosts
 * mediate every openLink themselves (ext-apps McpUiResourceCsp has no redirect field).
 */

const domain = process.env.MCP_WIDGET_DOMAIN || undefined;

/** The app's public https origin when the configuration names one (a local http origin is no CSP origin). */
function appOrigin(): string | undefined {
  try {
    const origin = configuredOrigin({ MCP_RESOURCE_URL: process.env.MCP_RESOURCE_URL || undefined, VERCEL_PROJECT_PRODUCTION_URL: process.env.VERCEL_PROJECT_PRODUCTION_URL || undefined });
    return origin && origin.startsWith("https:") ? origin : undefined;
  } catch {
    // A malformed MCP_RESOURCE_URL stops start-up in lib/config/env.ts with a message; not here.
    return undefined;
  }
}

const downloads = appOrigin();

export const worldCardWidget: WidgetDefinition = {
  name: "world-card",
  title: "World card",
  description: "Shows one world: its theme, tone, description, counts and first characters, with buttons to add, edit and list characters, expand it fullscreen with a graph of relations, export it as a file and delete it. The card already shows these details; do not repeat them.",
  html: WIDGET_HTML["world-card"],
  domain,
  ...(downloads ? { csp: { redirectDomains: [downloads] } } : {}),
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
