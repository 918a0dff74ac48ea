import { z } from "zod";
import { EXPORT_FORMAT } from "../export/world-export";
import { validateDocument, WorldFileProblems, type WorldDocument } from "./world-document";

/**
 * WorldCrafter's JSON export (lib/worlds/export/world-export.ts, `format: worldcrafter.world/v1`)
 * read back. Only the fields a world is made of are read; ids matter only to link a location to
 * its parent, and timestamps and counts are the new world's own.
 */

const text = z.string().optional();

const ExportShape = z.object({
  format: z.literal(EXPORT_FORMAT, { error: `must be "${EXPORT_FORMAT}" (is this a WorldCrafter JSON export?)` }),
  world: z.object({ name: z.string(), theme: z.string(), tone: text, description: text }),
  characters: z.array(z.object({ name: z.string(), role: text, traits: z.array(z.string()).optional(), backstory: text })),
  locations: z.array(z.object({ id: z.string(), name: z.string(), kind: text, description: text, parentId: z.string().nullable().optional() })),
});

/** `$.locations[3].parentId`, the way a person points into a JSON file. */
function jsonPath(path: PropertyKey[]): string {
  return path.reduce<string>((out, p) => (typeof p === "number" ? `${out}[${p}]` : `${out}.${String(p)}`), "$");
}

/** Line and column of a character offset, for JSON.parse's "at position N". */
function lineAndColumn(source: string, position: number): string {
  const before = source.slice(0, position);
  const line = before.split("\n").length;
  return `line ${line}, column ${position - before.lastIndexOf("\n")}`;
}

export function parseJsonWorld(source: string): WorldDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(source.replace(/^\uFEFF/, ""));
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    const position = /position (\d+)/.exec(message);
    const where = position ? ` (${lineAndColumn(source, Number(position[1]))})` : "";
    throw new WorldFileProblems([`not valid JSON${where}: ${message.split("\n")[0]}`]);
  }
  const shape = ExportShape.safeParse(raw);
  if (!shape.success) throw new WorldFileProblems(shape.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`));
  const { world, characters, locations } = shape.data;
  return validateDocument(
    {
      world,
      characters,
      locations: locations.map((l) => ({ key: l.id, name: l.name, kind: l.kind, description: l.description, parentKey: l.parentId ?? null })),
    },
    (path) => {
      // The document's `key`/`parentKey` are the file's `id`/`parentId`.
      const named = path.map((p) => (p === "key" ? "id" : p === "parentKey" ? "parentId" : p));
      return jsonPath(named);
    },
  );
}
