import { TRAITS_LABEL } from "../export/markdown";
import { validateDocument, WorldFileProblems, type WorldDocument, type WorldDocumentInput } from "./world-document";
import { cutText } from "../../text/cut-text";

/**
 * WorldCrafter's Markdown export (lib/worlds/export/markdown.ts) read back: the exporter's layout,
 * line by line, with each of its escapes undone.
 *
 *   # Name
 *   *Theme:* theme · *Tone:* tone
 *   description paragraphs
 *   ## Characters (N)
 *   ### Name — role
 *   *Traits:* a, b
 *   backstory paragraphs
 *   ## Locations (N)
 *   - **Name** (kind) — description      (two spaces of indent per level: inside the one above)
 *
 * What the exporter itself flattens stays flat: runs of white space in inline fields (names,
 * roles, kinds, traits, a location's description) read back as one space. CRLF and a BOM are
 * accepted. Anything else out of place is a problem naming its line.
 */

const CHARACTERS = /^## Characters \((\d+)\)\s*$/;
const LOCATIONS = /^## Locations \((\d+)\)\s*$/;
const FACTS = "*Theme:* ";
const TONE = " · *Tone:* ";
const ROLE = " — ";

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&" };

/** An inline field as escapeInline wrote it, unescaped: `\x` is x, and the three entities are their characters. */
function inline(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])|&(?:lt|gt|amp);/g, (whole, escaped: string | undefined) => escaped ?? ENTITIES[whole] ?? whole);
}

/** Prose as prose() wrote it: headings and defused links restored, entities decoded. */
function prose(lines: string[]): string {
  const text = lines
    .join("\n")
    .trim()
    .replace(/^( {0,3})\\#/gm, "$1#")
    .replace(/\]\\\(/g, "](")
    .replace(/\\\]:/g, "]:");
  return text.replace(/&(?:lt|gt|amp);/g, (e) => ENTITIES[e] ?? e);
}

/** Split at each `sep` not escaped by a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text.startsWith(sep, i)) {
      parts.push(text.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The index of the first unescaped `token` in `text` at or after `from`, or -1. */
function findUnescaped(text: string, token: string, from = 0): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text.startsWith(token, i)) return i;
  }
  return -1;
}

interface LocationLine {
  depth: number;
  name: string;
  kind: string;
  description: string;
}

/** `- **Name** (kind) — description` after its indent, or undefined when the line is not one. */
function locationLine(line: string): LocationLine | { problem: string } | undefined {
  const indent = /^( *)- \*\*/.exec(line);
  if (!indent) return undefined;
  const spaces = (indent[1] as string).length;
  if (spaces % 2 !== 0) return { problem: "indent a location by two spaces per level" };
  const start = indent[0].length;
  const end = findUnescaped(line, "**", start);
  if (end < 0) return { problem: "the location's name has no closing **" };
  const name = inline(line.slice(start, end));
  let rest = line.slice(end + 2);
  let kind = "";
  if (rest.startsWith(" (")) {
    const close = findUnescaped(rest, ")", 2);
    if (close < 0) return { problem: "the location's kind has no closing )" };
    kind = inline(rest.slice(2, close));
    rest = rest.slice(close + 1);
  }
  let description = "";
  if (rest.startsWith(ROLE)) {
    description = inline(rest.slice(ROLE.length).trim());
    rest = "";
  }
  if (rest.trim() !== "") return { problem: `unexpected text after the location: ${JSON.stringify(cutText(rest.trim(), 40))}` };
  return { depth: spaces / 2, name, kind, description };
}

const fail = (line: number, message: string): never => {
  throw new WorldFileProblems([`line ${line}: ${message}`]);
};

export function parseMarkdownWorld(source: string): WorldDocument {
  const lines = source.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const at = (i: number) => lines[i] ?? "";
  let i = 0;
  const skipBlank = () => {
    while (i < lines.length && at(i).trim() === "") i++;
  };

  // Where each field came from, for problems found by validation.
  const lineOf: Record<string, number> = {};

  skipBlank();
  if (!at(i).startsWith("# ")) fail(i + 1, "expected the world's title, `# Name` (is this a WorldCrafter Markdown export?)");
  const name = inline(at(i).slice(2).trim());
  lineOf["world.name"] = i + 1;
  i++;
  skipBlank();
  if (!at(i).startsWith(FACTS)) fail(i + 1, "expected the world's theme line, `*Theme:* …`");
  const [themePart = "", tonePart = ""] = splitUnescaped(at(i).slice(FACTS.length), TONE);
  lineOf["world.theme"] = lineOf["world.tone"] = i + 1;
  i++;

  const descriptionStart = i;
  while (i < lines.length && !CHARACTERS.test(at(i))) {
    if (LOCATIONS.test(at(i)) || at(i).startsWith("### ")) fail(i + 1, "expected `## Characters (N)` before any character or location");
    i++;
  }
  if (i >= lines.length) fail(lines.length, "the `## Characters (N)` heading is missing");
  lineOf["world.description"] = descriptionStart + 1;
  const description = prose(lines.slice(descriptionStart, i));
  const characterCount = Number((CHARACTERS.exec(at(i)) as RegExpExecArray)[1]);
  const charactersLine = i + 1;
  i++;

  const characters: WorldDocumentInput["characters"] = [];
  const characterLines: number[] = [];
  while (i < lines.length && !LOCATIONS.test(at(i))) {
    const line = at(i);
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (!line.startsWith("### ")) fail(i + 1, "expected a character heading, `### Name — role`");
    const heading = line.slice(4);
    const split = heading.indexOf(ROLE);
    const headingLine = i + 1;
    i++;
    skipBlank();
    let traits: string[] = [];
    if (at(i).startsWith(`${TRAITS_LABEL} `)) {
      traits = splitUnescaped(at(i).slice(TRAITS_LABEL.length + 1), ", ").map((t) => inline(t.trim()));
      i++;
    }
    const body = i;
    while (i < lines.length && !at(i).startsWith("### ") && !LOCATIONS.test(at(i))) {
      if (CHARACTERS.test(at(i))) fail(i + 1, "a second `## Characters` heading");
      i++;
    }
    const backstory = prose(lines.slice(body, i)).replace(/^\\\*Traits:\*/, TRAITS_LABEL);
    characters.push({
      name: inline((split < 0 ? heading : heading.slice(0, split)).trim()),
      role: split < 0 ? "" : inline(heading.slice(split + ROLE.length).trim()),
      traits,
      backstory,
    });
    characterLines.push(headingLine);
  }
  if (i >= lines.length) fail(lines.length, "the `## Locations (N)` heading is missing");
  if (characters.length !== characterCount) fail(charactersLine, `the heading says ${characterCount} characters but ${characters.length} follow`);
  const locationCount = Number((LOCATIONS.exec(at(i)) as RegExpExecArray)[1]);
  const locationsLine = i + 1;
  i++;

  const locations: WorldDocumentInput["locations"] = [];
  const locationLines: number[] = [];
  // The key of the latest location at each depth: a deeper line's parent.
  const open: string[] = [];
  for (; i < lines.length; i++) {
    const line = at(i);
    if (line.trim() === "") continue;
    const parsed = locationLine(line);
    if (parsed === undefined) fail(i + 1, "expected a location, `- **Name** (kind) — description`");
    if (parsed && "problem" in parsed) fail(i + 1, parsed.problem);
    const place = parsed as LocationLine;
    if (place.depth > open.length) fail(i + 1, "indented more than one level below the location above it");
    const key = `line ${i + 1}`;
    open.length = place.depth;
    locations.push({ key, name: place.name, kind: place.kind, description: place.description, parentKey: place.depth === 0 ? null : (open[place.depth - 1] as string) });
    open.push(key);
    locationLines.push(i + 1);
  }
  if (locations.length !== locationCount) fail(locationsLine, `the heading says ${locationCount} locations but ${locations.length} follow`);

  const doc: WorldDocumentInput = {
    world: { name, theme: inline(themePart.trim()), tone: inline(tonePart.trim()), description },
    characters,
    locations,
  };
  return validateDocument(doc, (path) => {
    const [section, index, field] = path;
    if (section === "world") return `line ${lineOf[`world.${String(index)}`] ?? 1}: world ${String(index)}`;
    if (section === "characters" && typeof index === "number") return `line ${characterLines[index]}: character ${index + 1}${field !== undefined ? ` ${String(field)}` : ""}`;
    if (section === "locations" && typeof index === "number") return `line ${locationLines[index]}: location ${index + 1}${field !== undefined ? ` ${String(field)}` : ""}`;
    return String(section);
  });
}
