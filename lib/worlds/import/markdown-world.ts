import { SEPARATOR, TRAITS_LABEL } from "../export/markdown";
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
 * An em dash of a character's name that touches the separator is written `&#8212;` and read back
 * as the dash; the heading splits at its first ` — `.
 *
 * What the exporter itself flattens stays flat: runs of white space in inline fields (names,
 * roles, kinds, traits, a location's description) read back as one space. CRLF and a BOM are
 * accepted. Anything else out of place is a problem naming its line.
 */

const CHARACTERS = /^## Characters \((\d+)\)\s*$/;
const LOCATIONS = /^## Locations \((\d+)\)\s*$/;
// A line meant as one of those headings but not written as one (`## Characters (1e3)`): named as
// itself, not as a missing heading further down. Prose cannot start a line with `#` (the exporter
// writes `&#35;`), so such a line is always the document's own.
const CHARACTERS_LOOSE = /^##\s*Characters\b/i;
const LOCATIONS_LOOSE = /^##\s*Locations\b/i;
const FACTS = "*Theme:* ";
const TONE = " · *Tone:* ";
/**
 * The references escapeInline writes, and `&#8212;`, the em dash of a character's name beside the
 * role separator (headingName in the exporter). An export made before that escape has no
 * `&#8212;` but as `&amp;#8212;` (the user's `&` is always `&amp;`), so it reads as before.
 */
const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&#8212;": "—" };

/**
 * The references prose() writes: `&lt;`, `&gt;`, `&amp;`, and the ones that defuse structure (a heading's
 * `#`, an unsafe link's `(` or `:`, a backstory's leading `*`). Every `&` the user typed was
 * written `&amp;`, so each of these is the exporter's; one pass, so `&amp;#35;` reads `&#35;`.
 */
const PROSE_ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&#35;": "#", "&#40;": "(", "&#42;": "*", "&#58;": ":" };

/** An inline field as the exporter wrote it, unescaped: `\x` is x, and each entity of ENTITIES its character, in one pass. */
function inline(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])|&(?:lt|gt|amp|#8212);/g, (whole, escaped: string | undefined) => escaped ?? ENTITIES[whole] ?? whole);
}

/** Prose as prose() wrote it: its character references undone, backslashes left as typed. */
function prose(lines: string[]): string {
  return lines
    .join("\n")
    .trim()
    .replace(/&(?:lt|gt|amp|#35|#40|#42|#58);/g, (e) => PROSE_ENTITIES[e] ?? e);
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
  if (rest.startsWith(SEPARATOR)) {
    description = inline(rest.slice(SEPARATOR.length).trim());
    rest = "";
  } else if (rest === SEPARATOR.trimEnd()) {
    // ` — ` with nothing after, its space cut by an editor that trims line ends: no description.
    rest = "";
  }
  if (rest.trim() !== "") return { problem: `unexpected text after the location: ${JSON.stringify(cutText(rest.trim(), 40))}` };
  return { depth: spaces / 2, name, kind, description };
}

// A declaration, not a const arrow: TypeScript narrows after a call to a declared `never` function.
function fail(line: number, message: string): never {
  throw new WorldFileProblems([`line ${line}: ${message}`]);
}

/** A heading `## Characters (N)` / `## Locations (N)`: its count as written, or a problem naming this line. */
function headingCount(line: string, lineNumber: number, exact: RegExp, what: string): string {
  const digits = exact.exec(line)?.[1];
  if (digits === undefined) fail(lineNumber, `expected \`## ${what} (N)\`, N the number of ${what.toLowerCase()} as digits`);
  return digits;
}

export function parseMarkdownWorld(source: string): WorldDocument {
  const lines = source.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  // A file that ends early is reported at its last line, never at one past it.
  while (lines.length > 1 && (lines[lines.length - 1] as string).trim() === "") lines.pop();
  if (lines.length === 1 && (lines[0] as string).trim() === "") fail(1, "the file is empty (is this a WorldCrafter Markdown export?)");
  const at = (i: number) => lines[i] ?? "";
  let i = 0;
  const skipBlank = () => {
    while (i < lines.length && at(i).trim() === "") i++;
  };
  const failHere = (message: string): never => (i >= lines.length ? fail(lines.length, `the file ends here; ${message}`) : fail(i + 1, message));

  // Where each field came from, for problems found by validation.
  const lineOf: Record<string, number> = {};

  skipBlank();
  if (!at(i).startsWith("# ")) failHere("expected the world's title, `# Name` (is this a WorldCrafter Markdown export?)");
  const name = inline(at(i).slice(2).trim());
  lineOf["world.name"] = i + 1;
  i++;
  skipBlank();
  if (!at(i).startsWith(FACTS)) failHere("expected the world's theme line, `*Theme:* …`");
  const [themePart = "", tonePart = ""] = splitUnescaped(at(i).slice(FACTS.length), TONE);
  lineOf["world.theme"] = lineOf["world.tone"] = i + 1;
  i++;

  const descriptionStart = i;
  while (i < lines.length && !CHARACTERS_LOOSE.test(at(i))) {
    if (LOCATIONS_LOOSE.test(at(i)) || at(i).startsWith("### ")) fail(i + 1, "expected `## Characters (N)` before any character or location");
    i++;
  }
  if (i >= lines.length) fail(lines.length, "the `## Characters (N)` heading is missing");
  lineOf["world.description"] = descriptionStart + 1;
  const description = prose(lines.slice(descriptionStart, i));
  const characterCount = headingCount(at(i), i + 1, CHARACTERS, "Characters");
  const charactersLine = i + 1;
  i++;

  const characters: WorldDocumentInput["characters"] = [];
  const characterLines: number[] = [];
  while (i < lines.length && !LOCATIONS_LOOSE.test(at(i))) {
    const line = at(i);
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (!line.startsWith("### ")) fail(i + 1, "expected a character heading, `### Name — role`");
    const heading = line.slice(4);
    const split = heading.indexOf(SEPARATOR);
    const headingLine = i + 1;
    i++;
    skipBlank();
    let traits: string[] = [];
    if (at(i).startsWith(`${TRAITS_LABEL} `)) {
      traits = splitUnescaped(at(i).slice(TRAITS_LABEL.length + 1), ", ").map((t) => inline(t.trim()));
      i++;
    }
    const body = i;
    while (i < lines.length && !at(i).startsWith("### ") && !LOCATIONS_LOOSE.test(at(i))) {
      if (CHARACTERS_LOOSE.test(at(i))) fail(i + 1, "a second `## Characters` heading");
      i++;
    }
    const backstory = prose(lines.slice(body, i));
    characters.push({
      name: inline((split < 0 ? heading : heading.slice(0, split)).trim()),
      role: split < 0 ? "" : inline(heading.slice(split + SEPARATOR.length).trim()),
      traits,
      backstory,
    });
    characterLines.push(headingLine);
  }
  if (i >= lines.length) fail(lines.length, "the `## Locations (N)` heading is missing");
  if (characters.length !== Number(characterCount)) fail(charactersLine, `the heading says ${characterCount} characters but ${characters.length} follow`);
  const locationCount = headingCount(at(i), i + 1, LOCATIONS, "Locations");
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
  if (locations.length !== Number(locationCount)) fail(locationsLine, `the heading says ${locationCount} locations but ${locations.length} follow`);

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
