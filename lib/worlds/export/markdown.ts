import type { Character, Location } from "../../db/generated/client";
import { neutraliseLinks } from "./safe-links";
import { MAX_LOCATION_DEPTH } from "../data/location-depth";

/**
 * A world as a Markdown document. Names, roles, kinds and traits are escaped so user text can
 * never become markup (a name like `<img onerror=…>` or `**x**` reads as typed); prose fields
 * (description, backstory) are kept as written paragraphs, with their HTML escaped and their
 * links limited to safe schemes (safe-links.ts). A prose line that would start a heading is
 * escaped too, so no text can forge the document's own structure: lib/worlds/import reads this
 * layout back (markdown-world.ts), and every escape here is one it undoes.
 *
 * Prose is escaped with character references (`&#35;` for a heading's `#`), never backslashes:
 * every `&` the user typed is written `&amp;`, so a reference in the file is always the
 * exporter's and the reader can undo exactly those, while a backslash the user typed stays theirs
 * (an outside audit's `\# literal` came back as `# literal` when the escape was `\#`).
 */

const INLINE_SPECIALS = /[\\`*_{}[\]()#+\-.!|<>~&]/g;

export function escapeInline(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(INLINE_SPECIALS, (c) => (c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "&" ? "&amp;" : `\\${c}`));
}

/** A trait: inline-escaped, and its commas too (`\,`, CommonMark §2.4), since traits are listed comma-separated. */
export function escapeTrait(text: string): string {
  return escapeInline(text).replace(/,/g, "\\,");
}

/** Between a character's name and role in its heading (the reader splits at the first), and before a location's description. */
export const SEPARATOR = " — ";

/**
 * A character's name in its heading, `### Name — role`. An em dash of the name with a space before
 * it and a space or the name's end after it could be read as the separator or a piece of it (an
 * outside review's "Ana —" with role "hero" came back as "Ana" and "— hero"), so that dash is
 * written `&#8212;`: Markdown renders it as the same dash (CommonMark §2.5), and since every `&`
 * typed is written `&amp;`, the reader undoes exactly this one. Other dashes stay as typed.
 */
function headingName(name: string): string {
  return escapeInline(name).replace(/ —(?= |$)/g, " &#8212;");
}

/** The label of a character's traits line; a backstory starting with it is escaped so it cannot pose as one. */
export const TRAITS_LABEL = "*Traits:*";

/** User prose as Markdown paragraphs: HTML escaped, links only to http(s), mailto or relative places, no headings. */
function prose(text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").trim();
  // CommonMark §2.5: a character reference never acts as structure, so `&#35;` cannot open a heading.
  return neutraliseLinks(escaped.replace(/^( {0,3})#/gm, "$1&#35;"));
}

interface WorldHead {
  name: string;
  theme: string;
  tone: string;
  description: string;
}

/**
 * The locations as a nested list, parents before their children. A tree stored before locations
 * had a depth bound may be deeper than MAX_LOCATION_DEPTH (outside audit: 11,000 levels made
 * every export of its world fail, and 3,000 levels a 9 MB file of indentation), so the walk uses
 * an explicit stack, not recursion, and a location below the bound is listed at the deepest level.
 */
function locationTree(locations: Location[]): string[] {
  const ids = new Set(locations.map((l) => l.id));
  const children = new Map<string | null, Location[]>();
  for (const l of locations) {
    // A parent outside this world's export (cannot happen today) is treated as top level.
    const parent = l.parentId !== null && ids.has(l.parentId) ? l.parentId : null;
    const siblings = children.get(parent);
    if (siblings) siblings.push(l);
    else children.set(parent, [l]);
  }
  const lines: string[] = [];
  const seen = new Set<string>();
  // Pushed in reverse so each parent's children come off the stack in their stored order.
  const stack: { location: Location; depth: number }[] = [];
  const pushChildren = (parent: string | null, depth: number) => {
    const list = children.get(parent) ?? [];
    for (let i = list.length - 1; i >= 0; i--) stack.push({ location: list[i] as Location, depth });
  };
  pushChildren(null, 0);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { location: l, depth } = next;
    if (seen.has(l.id)) continue;
    seen.add(l.id);
    // Judged on the escaped text: a description of white space alone wrote a dangling ` — `,
    // which the document's trimmed last line (or any editor) cut to ` —` (outside audit).
    const kind = escapeInline(l.kind);
    const description = escapeInline(l.description);
    const about = `${kind ? ` (${kind})` : ""}${description ? `${SEPARATOR}${description}` : ""}`;
    lines.push(`${"  ".repeat(Math.min(depth, MAX_LOCATION_DEPTH - 1))}- **${escapeInline(l.name)}**${about}`);
    pushChildren(l.id, depth + 1);
  }
  return lines;
}

export function renderMarkdown(world: WorldHead, characters: Character[], locations: Location[]): string {
  const out: string[] = [`# ${escapeInline(world.name)}`, ""];
  const facts = [`*Theme:* ${escapeInline(world.theme)}`, ...(world.tone ? [`*Tone:* ${escapeInline(world.tone)}`] : [])];
  out.push(facts.join(" · "), "");
  const description = prose(world.description);
  if (description) out.push(description, "");

  out.push(`## Characters (${characters.length})`, "");
  for (const c of characters) {
    // Judged on the escaped text, as a location's description is: a role of white space alone writes no separator.
    const role = escapeInline(c.role);
    out.push(`### ${headingName(c.name)}${role ? `${SEPARATOR}${role}` : ""}`, "");
    if (c.traits.length) out.push(`${TRAITS_LABEL} ${c.traits.map(escapeTrait).join(", ")}`, "");
    const backstory = prose(c.backstory);
    if (backstory) out.push(backstory.startsWith(TRAITS_LABEL) ? `&#42;${backstory.slice(1)}` : backstory, "");
  }

  out.push(`## Locations (${locations.length})`, "");
  out.push(...locationTree(locations));
  return `${out.join("\n").trimEnd()}\n`;
}
