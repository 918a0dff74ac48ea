import { parseJsonWorld } from "./json-world";
import { parseMarkdownWorld } from "./markdown-world";
import type { WorldDocument } from "./world-document";

/** The two file formats import_world reads. */
export const WORLD_FILE_FORMATS = ["markdown", "json"] as const;
export type WorldFileFormat = (typeof WORLD_FILE_FORMATS)[number];

/**
 * Which format a file is, when the caller did not say: its media type, else its name's
 * extension, else its first character (a JSON export is an object; a Markdown one a heading).
 */
export function sniffFormat(text: string, hints: { mediaType?: string; fileName?: string } = {}): WorldFileFormat {
  if (hints.mediaType === "application/json") return "json";
  if (hints.mediaType === "text/markdown") return "markdown";
  if (hints.fileName && /\.json$/i.test(hints.fileName)) return "json";
  if (hints.fileName && /\.(md|markdown)$/i.test(hints.fileName)) return "markdown";
  return text.replace(/^\uFEFF/, "").trimStart().startsWith("{") ? "json" : "markdown";
}

export function parseWorldFile(text: string, format: WorldFileFormat): WorldDocument {
  return format === "json" ? parseJsonWorld(text) : parseMarkdownWorld(text);
}
