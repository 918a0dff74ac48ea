import type { Icon, ToolDefinition } from "../mcp";

/**
 * WorldCrafter's icons (2025-11-25 basic §icons): small SVGs carried as base64 `data:` URIs. The
 * spec lets a client load only https or data: sources from the server's own origin; a data: URI
 * needs no origin at all, so the registry (compiled once, the same behind every host name) can
 * publish it, and a client fetches nothing. Each is a 24×24 glyph on the app's tile, scalable
 * (`sizes: ["any"]`).
 */

const TILE = '<rect width="24" height="24" rx="5" fill="#2f4858"/>';
const STROKE = 'fill="none" stroke="#f6d186" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"';

/** The glyphs, each drawn on the tile. */
const GLYPHS = {
  /** The app: a globe. */
  world: `<circle cx="12" cy="12" r="7"/><path d="M5 12h14M12 5c2.5 2 2.5 12 0 14M12 5c-2.5 2-2.5 12 0 14"/>`,
  character: `<circle cx="12" cy="9" r="3.2"/><path d="M6 19c.8-3.4 3.2-5 6-5s5.2 1.6 6 5"/>`,
  location: `<path d="M12 19s-5-4.6-5-8.5a5 5 0 0 1 10 0c0 3.9-5 8.5-5 8.5z"/><circle cx="12" cy="10.5" r="1.8"/>`,
  search: `<circle cx="10.5" cy="10.5" r="4.5"/><path d="M14 14l4.5 4.5"/>`,
  document: `<path d="M8 5h6l3 3v11H8z"/><path d="M10.5 12h4M10.5 15h4"/>`,
  names: `<path d="M7 17l4-10 4 10M8.6 13.5h4.8M16.5 9v8"/>`,
  outline: `<path d="M7 8h10M7 12h10M7 16h6"/>`,
} as const;

export type Glyph = keyof typeof GLYPHS;

function iconOf(glyph: Glyph): Icon {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${TILE}<g ${STROKE}>${GLYPHS[glyph]}</g></svg>`;
  return { src: `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`, mimeType: "image/svg+xml", sizes: ["any"] };
}

/** The server's icon (serverInfo, the server card). */
export const SERVER_ICONS: Icon[] = [iconOf("world")];

/** Each tool's glyph; a tool not named here shows the app's. */
const TOOL_GLYPHS: Record<string, Glyph> = {
  draft_world_outline: "outline",
  suggest_names: "names",
  create_world: "world",
  list_worlds: "world",
  get_world: "world",
  update_world: "world",
  delete_world: "world",
  create_character: "character",
  get_character: "character",
  list_characters: "character",
  update_character: "character",
  create_location: "location",
  list_locations: "location",
  export_world: "document",
  import_world: "document",
  search: "search",
  fetch: "document",
};

/** The tool with its icon, unless it names its own. */
export function withIcon(tool: ToolDefinition): ToolDefinition {
  return tool.icons ? tool : { ...tool, icons: [iconOf(TOOL_GLYPHS[tool.name] ?? "world")] };
}
