/**
 * npm run db:seed — a few sample worlds for the fixed development subject "dev-user" (until the
 * auth issue brings real subjects). Idempotent: fixed ids, upserted, so reruns change nothing.
 * Run by jiti (TypeScript on Node 20) because it uses the generated client, which is TypeScript.
 */
import { closePrisma, getPrisma } from "../../lib/db/prisma";

export const DEV_SUBJECT = "dev-user";

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
  const prisma = getPrisma();
  try {
    for (const { characters, locations, ...world } of worlds) {
      const data = { ...world, ownerSubject: DEV_SUBJECT };
      await prisma.world.upsert({ where: { id: world.id }, create: data, update: data });
      for (const c of characters) {
        const row = { ...c, worldId: world.id, ownerSubject: DEV_SUBJECT };
        await prisma.character.upsert({ where: { id: c.id }, create: row, update: row });
      }
      // Parents are listed before their children.
      for (const l of locations) {
        const row = { ...l, worldId: world.id, ownerSubject: DEV_SUBJECT };
        await prisma.location.upsert({ where: { id: l.id }, create: row, update: row });
      }
    }
    const count = await prisma.world.count({ where: { ownerSubject: DEV_SUBJECT } });
    console.log(`Seeded ${worlds.length} sample worlds; "${DEV_SUBJECT}" now owns ${count}.`);
  } finally {
    await closePrisma();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
