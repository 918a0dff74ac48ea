import { DomainError } from "../data/errors";
import { getCharacter } from "../data/characters";
import { getLocation } from "../data/locations";
import { getWorld, getWorldCard } from "../data/worlds";
import { neutraliseLinks } from "../export/safe-links";
import type { HitKind } from "../data/search";
import { uriOf } from "../records";
import { isRecordKind, recordUrl } from "../record-links";

/**
 * Records as the documents of the company-knowledge `search`/`fetch` pair: an id that names the
 * kind ("world:<id>"), a title, the text and the url used for citations — the record's page,
 * which its owner can open (record-links.ts). The MCP resource URI, which resources/read resolves
 * for the same caller, is in fetch's metadata as `resourceUri`.
 *
 * The text is plain text, every field as its owner typed it: the document's full text for the
 * model (seed 002 §company knowledge names no markup), and, exactly as typed, what the record's
 * page shows in a `<pre>` (`typed` below). It used to escape the name alone as Markdown (`Mont\-St\. Michel`, `&amp;`) beside
 * raw fields, which no reader could undo (outside review). One exception: a link whose scheme is
 * not http(s) or mailto is defused as in the export (safe-links.ts, issue 19), since a host may
 * render the text, or the model repeat it, as Markdown. That holds for the whole text and the
 * title, not the prose alone: a name, role or kind is as much Markdown to a renderer, and a link
 * can open in one field and close in the next (outside probe, 2026-11-29). So do the metadata's
 * texts (the world's name and theme), and so does every `<` that could open an autolink or raw
 * HTML (`<javascript:…>`, `<a href>`, `<img onerror>`, even `<p>`: safe-links.ts).
 */

export interface KnowledgeDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata: Record<string, string | number>;
}


export function documentId(kind: HitKind, id: string): string {
  return `${kind}:${id}`;
}

export function resourceUriOf(kind: HitKind, id: string): string {
  return kind === "world" ? uriOf.world(id) : kind === "character" ? uriOf.character(id) : uriOf.location(id);
}

export function urlOf(kind: HitKind, id: string): string {
  return recordUrl(kind, id);
}

/**
 * How a document's texts are given: `markdown` for the model and hosts that may render them
 * (unsafe links and markup defused, above), `typed` for the record's page, which React escapes
 * as HTML and shows in a `<pre>`: there a defused `&lt;` would be seen as those four characters.
 */
export type DocumentTexts = "markdown" | "typed";

const textFor = (texts: DocumentTexts, text: string): string => (texts === "markdown" ? neutraliseLinks(text) : text);

/** A document's title: its name and label, with unsafe links defused as in the text. */
export function titleOf(name: string, label: string, texts: DocumentTexts = "markdown"): string {
  return textFor(texts, label ? `${name} (${label})` : name);
}

/** C0 controls and DEL: no record id has one, and PostgreSQL refuses a NUL in any text parameter (22021). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * "kind:id" → its parts, or the DomainError every caller reads as "no such record". The id is
 * checked here, not only by the fetch tool's schema: a record page hands over its URL segment as
 * it was decoded, and a NUL there reached the database as a 500 (outside audit, 2026-11-27).
 */
function parseDocumentId(documentId: string): { kind: HitKind; id: string } {
  const colon = documentId.indexOf(":");
  const kind = documentId.slice(0, colon) as HitKind;
  const id = documentId.slice(colon + 1);
  if (colon <= 0 || !isRecordKind(kind) || id.length === 0 || CONTROL_CHARACTER.test(id)) {
    throw new DomainError(`Unknown document id ${JSON.stringify(documentId)}: pass an id from search results, like "world:<id>".`);
  }
  return { kind, id };
}

export async function fetchDocument(owner: string, documentIdText: string, texts: DocumentTexts = "markdown"): Promise<KnowledgeDocument> {
  const { kind, id } = parseDocumentId(documentIdText);
  // The lines joined, links defused across all of them (a link may span two fields).
  const documentText = (lines: readonly string[]) => textFor(texts, lines.join("\n"));
  const url = urlOf(kind, id);
  if (kind === "world") {
    const w = await getWorldCard(owner, id, 50);
    const lines = [w.name, "", `Theme: ${w.theme}${w.tone ? ` · Tone: ${w.tone}` : ""}`, ""];
    if (w.description) lines.push(w.description, "");
    lines.push(`Characters (${w._count.characters}): ${w.characters.map((c) => (c.role ? `${c.name} (${c.role})` : c.name)).join(", ") || "none"}`);
    lines.push(`Locations (${w._count.locations}): ${w.locations.map((l) => (l.kind ? `${l.name} (${l.kind})` : l.name)).join(", ") || "none"}`);
    return {
      id: documentIdText,
      title: titleOf(w.name, w.theme, texts),
      text: documentText(lines),
      url,
      metadata: { kind, resourceUri: resourceUriOf(kind, id), worldId: w.id, theme: textFor(texts, w.theme), characters: w._count.characters, locations: w._count.locations, updatedAt: w.updatedAt.toISOString() },
    };
  }
  if (kind === "character") {
    const c = await getCharacter(owner, id);
    const world = await getWorld(owner, c.worldId);
    const lines = [`${c.name}${c.role ? ` — ${c.role}` : ""}`, "", `World: ${world.name}`];
    if (c.traits.length) lines.push(`Traits: ${c.traits.join(", ")}`);
    if (c.backstory) lines.push("", c.backstory);
    return { id: documentIdText, title: titleOf(c.name, c.role, texts), text: documentText(lines), url, metadata: { kind, resourceUri: resourceUriOf(kind, id), worldId: c.worldId, world: textFor(texts, world.name), updatedAt: c.updatedAt.toISOString() } };
  }
  const l = await getLocation(owner, id);
  const world = await getWorld(owner, l.worldId);
  const parent = l.parentId ? await getLocation(owner, l.parentId).catch(() => undefined) : undefined;
  const lines = [`${l.name}${l.kind ? ` (${l.kind})` : ""}`, "", `World: ${world.name}${parent ? ` · Inside: ${parent.name}` : ""}`];
  if (l.description) lines.push("", l.description);
  return { id: documentIdText, title: titleOf(l.name, l.kind, texts), text: documentText(lines), url, metadata: { kind, resourceUri: resourceUriOf(kind, id), worldId: l.worldId, world: textFor(texts, world.name), updatedAt: l.updatedAt.toISOString() } };
}
