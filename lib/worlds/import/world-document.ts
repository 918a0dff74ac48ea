import { z } from "zod";
import { forbiddenTextIssue } from "../../mcp";
import { LongText, Name, ShortText, Theme, Traits } from "../tools/data/shared";
import { MAX_LOCATION_DEPTH } from "../data/location-depth";

/**
 * A world file read back — from WorldCrafter's Markdown or JSON export — before anything is
 * written: the world's fields, its characters in order, and its locations in order with each
 * one's parent named by a key local to the file. Validated with the very limits the create_*
 * tools apply, plus a ceiling on how many rows one import may add.
 */

export const IMPORT_MAX_CHARACTERS = 1000;
export const IMPORT_MAX_LOCATIONS = 1000;

const Character = z.object({
  name: Name,
  role: ShortText.default(""),
  traits: Traits.default([]),
  backstory: LongText.default(""),
});

const Location = z.object({
  /** The location's id in the file (JSON) or its line (Markdown): how children name it. */
  key: z.string().min(1).max(64),
  name: Name,
  kind: ShortText.default(""),
  description: LongText.default(""),
  parentKey: z.string().min(1).max(64).nullable().default(null),
});

export const WorldDocument = z
  .object({
    world: z.object({ name: Name, theme: Theme, tone: ShortText.default(""), description: LongText.default("") }),
    characters: z.array(Character).max(IMPORT_MAX_CHARACTERS, `at most ${IMPORT_MAX_CHARACTERS} characters per import`),
    locations: z.array(Location).max(IMPORT_MAX_LOCATIONS, `at most ${IMPORT_MAX_LOCATIONS} locations per import`),
  })
  .superRefine((doc, ctx) => {
    const keys = new Map<string, number>();
    doc.locations.forEach((l, i) => {
      if (keys.has(l.key)) ctx.addIssue({ code: "custom", path: ["locations", i, "key"], message: `the id ${JSON.stringify(l.key)} is used twice` });
      keys.set(l.key, i);
    });
    doc.locations.forEach((l, i) => {
      if (l.parentKey !== null && !keys.has(l.parentKey)) {
        ctx.addIssue({ code: "custom", path: ["locations", i, "parentId"], message: `names no location of this file (${JSON.stringify(l.parentKey)})` });
      }
    });
    // A parent chain must end: one that comes back to where it started cannot be stored as a tree.
    // It must also end within MAX_LOCATION_DEPTH levels, as create_location's do.
    const parentOf = new Map(doc.locations.map((l) => [l.key, l.parentKey]));
    doc.locations.forEach((l, i) => {
      const seen = new Set<string>([l.key]);
      for (let p = l.parentKey; p !== null && p !== undefined; p = parentOf.get(p) ?? null) {
        if (seen.has(p)) {
          ctx.addIssue({ code: "custom", path: ["locations", i, "parentId"], message: "its parents form a cycle" });
          return;
        }
        seen.add(p);
        if (seen.size > MAX_LOCATION_DEPTH) {
          ctx.addIssue({ code: "custom", path: ["locations", i, "parentId"], message: `it lies more than ${MAX_LOCATION_DEPTH} levels deep (locations nest at most ${MAX_LOCATION_DEPTH} levels)` });
          return;
        }
      }
    });
  });

export type WorldDocument = z.output<typeof WorldDocument>;
export type WorldDocumentInput = z.input<typeof WorldDocument>;

/** A world file that cannot be imported: each problem names where (a line, or a JSON path) and what. */
export class WorldFileProblems extends Error {
  override name = "WorldFileProblems";
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

/** Up to this many problems are reported; the rest are counted. */
const REPORTED = 8;

export function describeProblems(problems: string[]): string {
  const shown = problems.slice(0, REPORTED).join("; ");
  return problems.length > REPORTED ? `${shown}; and ${problems.length - REPORTED} more` : shown;
}

/**
 * Validate a parsed document; `where` turns a zod path into the file's own terms (a Markdown
 * line, a JSON path). Throws WorldFileProblems naming each bad field.
 */
export function validateDocument(raw: WorldDocumentInput, where: (path: PropertyKey[]) => string): WorldDocument {
  // The rule create_* arguments follow (lib/mcp/runtime/validate.ts): no C0 control character
  // but tab and newlines, and no lone surrogate, in any string. PostgreSQL refuses a NUL outright (22021).
  const forbidden = forbiddenTextIssue(raw);
  if (forbidden) throw new WorldFileProblems([`${where(forbidden.path)}: ${forbidden.message}`]);
  const parsed = WorldDocument.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new WorldFileProblems(parsed.error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`));
}
