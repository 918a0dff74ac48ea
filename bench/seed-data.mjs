// The data every benchmarked database holds, and the reads the benchmark makes of it.
//
// Fixed ids and timestamps: PostgreSQL and PGlite get identical rows, so their rows in the report
// read the same records, and list pages come back in the same order every run.

export const WORLD_COUNT = 50;
export const CHARACTERS_PER_WORLD = 4;
export const LOCATIONS_PER_WORLD = 3;

/** The world get_world reads (any one will do: the lookup is by primary key). */
export const TARGET_WORLD_ID = worldId(0);
/** list_worlds arguments: the first page, newest first, with the tool's default page size. */
export const LIST_ARGS = { limit: 20 };

const THEMES = ["high fantasy", "steampunk", "space opera", "cyberpunk", "mythic"];
const EPOCH = Date.UTC(2026, 0, 1);

function worldId(i) {
  return `bench-world-${String(i).padStart(2, "0")}`;
}

/** Distinct creation times one minute apart, so (createdAt, id) paging has no ties to break. */
function stamp(i) {
  return new Date(EPOCH + i * 60_000);
}

/** About 400 characters: list_worlds cuts it to an excerpt, get_world returns it whole. */
function description(name, theme) {
  const sentence = `${name} is a ${theme} world of old roads, rival houses and half-remembered oaths. `;
  return sentence.repeat(5).trim();
}

/**
 * Rows for createMany, all owned by `owner` (the subject the server uses).
 * @param {string} owner
 */
export function seedRows(owner) {
  const worlds = [];
  const characters = [];
  const locations = [];
  for (let w = 0; w < WORLD_COUNT; w++) {
    const id = worldId(w);
    const name = `Bench World ${w}`;
    const theme = THEMES[w % THEMES.length];
    const at = stamp(w);
    worlds.push({ id, ownerSubject: owner, name, theme, tone: "even", description: description(name, theme), createdAt: at, updatedAt: at });
    for (let c = 0; c < CHARACTERS_PER_WORLD; c++) {
      characters.push({
        id: `${id}-char-${c}`,
        ownerSubject: owner,
        worldId: id,
        name: `Character ${c} of ${name}`,
        role: "wanderer",
        traits: ["curious", "stubborn"],
        backstory: `Born in ${name}.`,
        createdAt: at,
        updatedAt: at,
      });
    }
    for (let l = 0; l < LOCATIONS_PER_WORLD; l++) {
      // The first location of a world contains the others, as places usually nest.
      const parentId = l === 0 ? null : `${id}-loc-0`;
      locations.push({ id: `${id}-loc-${l}`, ownerSubject: owner, worldId: id, name: `Place ${l} of ${name}`, kind: "town", description: "", parentId, createdAt: at, updatedAt: at });
    }
  }
  return { worlds, characters, locations };
}

/**
 * Checks of the two reads, shared by the HTTP rows (on structuredContent) and the direct rows (on
 * what the data layer returns): undefined when right, else what is wrong.
 */
export function checkWorld(world) {
  if (world?.id !== TARGET_WORLD_ID) return `expected world ${TARGET_WORLD_ID}, got ${world?.id}`;
  const { characters, locations } = world.counts ?? {};
  if (characters !== CHARACTERS_PER_WORLD || locations !== LOCATIONS_PER_WORLD) return `wrong counts ${characters}/${locations}`;
  return undefined;
}

export function checkWorldPage(items) {
  return items?.length === LIST_ARGS.limit ? undefined : `expected ${LIST_ARGS.limit} worlds, got ${items?.length}`;
}
