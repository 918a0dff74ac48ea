/**
 * npm run db:seed [-- --sub <subject>] — a few sample worlds, owned by the development subject
 * unless another is named. Idempotent: fixed ids (prefixed by the subject for anyone else),
 * upserted, so reruns change nothing. Run by jiti (TypeScript on Node 20) because it uses the
 * generated client, which is TypeScript.
 */
import { parseArgs } from "node:util";
import { closePrisma, getPrisma } from "../../lib/db/prisma";
import { DEV_SUBJECT } from "../../lib/authorization-server/key-file";

const { values } = parseArgs({ options: { sub: { type: "string", default: DEV_SUBJECT } } });
const SUBJECT = values.sub;
/** Row ids are global: another subject's copy of the samples gets ids of its own. */
const idFor = (id: string) => (SUBJECT === DEV_SUBJECT ? id : `${id}-${SUBJECT}`);

const worlds = [
  {
    id: "seed-world-eldergrove",
    name: "Eldergrove",
    theme: "high fantasy",
    tone: "wondrous",
    description: "An ancient forest kingdom where the trees remember every oath sworn beneath them.",
    characters: [
      { id: "seed-char-ysolde", name: "Ysolde Thornwhisper", role: "warden", traits: ["patient", "stubborn"], backstory: "Sworn to the oldest oak at seven." },
      { id: "seed-char-bram", name: "Bram Ashcroft", role: "exile", traits: ["witty", "reckless"], backstory: "Broke an oath and lost his name." },
    ],
    locations: [
      { id: "seed-loc-heartwood", name: "The Heartwood", kind: "forest", description: "The living capital.", parentId: null },
      { id: "seed-loc-oathhall", name: "Oath Hall", kind: "hall", description: "Where promises are carved into bark.", parentId: "seed-loc-heartwood" },
    ],
  },
  {
    id: "seed-world-brasshaven",
    name: "Brasshaven",
    theme: "steampunk",
    tone: "gritty",
    description: "A smog-wrapped port city run by rival guilds of clockmakers.",
    characters: [
      { id: "seed-char-mira", name: "Mira Coggsworth", role: "inventor", traits: ["brilliant", "secretive"], backstory: "Built the harbour's tide engine." },
    ],
    locations: [{ id: "seed-loc-docks", name: "Steam Docks", kind: "harbour", description: "Cranes hiss day and night.", parentId: null }],
  },
  {
    id: "seed-world-lumen",
    name: "Lumen Drift",
    theme: "space opera",
    tone: "hopeful",
    description: "A convoy of generation ships searching for a star that sings.",
    characters: [],
    locations: [],
  },
];

async function main(): Promise<void> {
  const prisma = await getPrisma();
  try {
    for (const { characters, locations, ...sample } of worlds) {
      const world = { ...sample, id: idFor(sample.id), ownerSubject: SUBJECT };
      await prisma.world.upsert({ where: { id: world.id }, create: world, update: world });
      for (const c of characters) {
        const row = { ...c, id: idFor(c.id), worldId: world.id, ownerSubject: SUBJECT };
        await prisma.character.upsert({ where: { id: row.id }, create: row, update: row });
      }
      // Parents are listed before their children.
      for (const l of locations) {
        const row = { ...l, id: idFor(l.id), parentId: l.parentId === null ? null : idFor(l.parentId), worldId: world.id, ownerSubject: SUBJECT };
        await prisma.location.upsert({ where: { id: row.id }, create: row, update: row });
      }
    }
    const count = await prisma.world.count({ where: { ownerSubject: SUBJECT } });
    console.log(`Seeded ${worlds.length} sample worlds; "${SUBJECT}" now owns ${count}.`);
  } finally {
    await closePrisma();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
