import { z } from "zod";

/**
 * The `output` of every data tool: exactly the structuredContent it returns (records.ts shapes,
 * the summaries of list pages, the knowledge pair's documents). Published as `outputSchema`; the
 * core checks each successful result against it (server/tools §output schema). Strict objects,
 * so a field added to a result without its schema fails the check instead of going unannounced.
 */

const Iso = z.iso.datetime();
/** Long text fields cut to fit the structured budget (shared.ts fitRecord). */
const Truncated = z.array(z.string()).optional().describe("Fields cut short to fit; read the resource for the full text");
const NextCursor = z.string().optional().describe("Pass as cursor for the next page; absent on the last page");

const WorldFields = {
  id: z.string(),
  name: z.string(),
  theme: z.string(),
  tone: z.string(),
  description: z.string(),
  createdAt: Iso,
  updatedAt: Iso,
};
const Counts = z.strictObject({ characters: z.number().int(), locations: z.number().int() });

export const WorldOutput = z.strictObject({ world: z.strictObject({ ...WorldFields, truncated: Truncated }) });
export const WorldWithCountsOutput = z.strictObject({ world: z.strictObject({ ...WorldFields, counts: Counts, truncated: Truncated }) });

export const WorldPageOutput = z.strictObject({
  worlds: z.array(z.strictObject({ id: z.string(), name: z.string(), theme: z.string(), tone: z.string(), summary: z.string(), updatedAt: Iso })),
  nextCursor: NextCursor,
});

export const DeleteWorldOutput = z.strictObject({
  deleted: z.boolean(),
  worldId: z.string(),
  name: z.string().optional().describe("The deleted world's name (when deleted)"),
  reason: z.enum(["not_confirmed", "declined", "cancelled"]).optional().describe("Why the world was kept (when not deleted)"),
});

export const CharacterOutput = z.strictObject({
  character: z.strictObject({
    id: z.string(),
    worldId: z.string(),
    name: z.string(),
    role: z.string(),
    traits: z.array(z.string()),
    backstory: z.string(),
    createdAt: Iso,
    updatedAt: Iso,
    truncated: Truncated,
  }),
});

export const CharacterPageOutput = z.strictObject({
  worldId: z.string(),
  characters: z.array(z.strictObject({ id: z.string(), name: z.string(), role: z.string(), traits: z.array(z.string()), summary: z.string() })),
  nextCursor: NextCursor,
});

export const LocationOutput = z.strictObject({
  location: z.strictObject({
    id: z.string(),
    worldId: z.string(),
    name: z.string(),
    kind: z.string(),
    description: z.string(),
    parentId: z.string().nullable(),
    createdAt: Iso,
    updatedAt: Iso,
    truncated: Truncated,
  }),
});

export const LocationPageOutput = z.strictObject({
  worldId: z.string(),
  locations: z.array(z.strictObject({ id: z.string(), name: z.string(), kind: z.string(), parentId: z.string().nullable(), summary: z.string() })),
  nextCursor: NextCursor,
});

/** The company-knowledge pair (seed 002): search → {results}, fetch → one document. */
export const SearchOutput = z.strictObject({
  results: z.array(z.strictObject({ id: z.string(), title: z.string(), url: z.url(), snippet: z.string() })),
});

export const FetchOutput = z.strictObject({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  url: z.url(),
  metadata: z.record(z.string(), z.union([z.string(), z.number()])),
  truncated: Truncated,
});
