import type { Character, Location } from "../../db/generated/client";
import { charactersInOrder } from "../data/characters";
import { locationsInOrder } from "../data/locations";
import { getWorld } from "../data/worlds";
import { characterRecord, locationRecord, worldWithCounts } from "../records";
import { renderMarkdown } from "./markdown";

/**
 * A whole world as one Markdown document and one JSON document. Characters and locations are read
 * a page at a time, each page one step, so a long export reports progress as it goes and stops at
 * the next step once `signal` is aborted (the client cancelled or went away).
 */

/** Rows per step: large enough to keep the step count modest, small enough to stay responsive. */
export const EXPORT_PAGE = 100;

export interface ExportStep {
  step: number;
  total: number;
  message: string;
}

export interface WorldExport {
  world: ReturnType<typeof worldWithCounts>;
  characters: number;
  locations: number;
  markdown: string;
  json: string;
}

export const EXPORT_FORMAT = "worldcrafter.world/v1";

async function readAll<T extends Character | Location>(
  pageAfter: (after: T | undefined) => Promise<T[]>,
  onPage: () => Promise<void>,
  signal: AbortSignal,
): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    signal.throwIfAborted();
    const page = await pageAfter(rows[rows.length - 1]);
    rows.push(...page);
    await onPage();
    if (page.length < EXPORT_PAGE) return rows;
  }
}

export async function exportWorld(
  owner: string,
  worldId: string,
  options: { signal: AbortSignal; onStep?: (step: ExportStep) => Promise<void> },
): Promise<WorldExport> {
  const { signal } = options;
  let step = 0;
  let total = 3;
  const report = async (message: string) => {
    step += 1;
    await options.onStep?.({ step, total: Math.max(total, step), message });
  };

  signal.throwIfAborted();
  const world = await getWorld(owner, worldId);
  const pages = (n: number) => Math.floor(n / EXPORT_PAGE) + 1;
  // The counts fix the plan: the world, a page per EXPORT_PAGE rows of each kind, then rendering.
  total = 1 + pages(world._count.characters) + pages(world._count.locations) + 1;
  await report(`Read world "${world.name}"`);

  const characters = await readAll<Character>(
    (after) => charactersInOrder(owner, worldId, after, EXPORT_PAGE),
    () => report("Read characters"),
    signal,
  );
  const locations = await readAll<Location>(
    (after) => locationsInOrder(owner, worldId, after, EXPORT_PAGE),
    () => report("Read locations"),
    signal,
  );

  signal.throwIfAborted();
  const record = worldWithCounts({ ...world, _count: { characters: characters.length, locations: locations.length } });
  const markdown = renderMarkdown(record, characters, locations);
  const json = JSON.stringify(
    {
      format: EXPORT_FORMAT,
      world: record,
      characters: characters.map(characterRecord),
      locations: locations.map(locationRecord),
    },
    null,
    2,
  );
  total = step + 1;
  await report("Rendered Markdown and JSON");
  return { world: record, characters: characters.length, locations: locations.length, markdown, json };
}
