// A child process of bench/run.mjs that talks to one database the way the server does, without
// the server: it opens the client through lib/db/prisma.ts from the same DATABASE_URL /
// PGLITE_DATA_DIR environment, seeds the benchmark data, and times the data-layer calls the
// get_world and list_worlds tools make ("direct Prisma" rows).
//
// A process of its own rather than a client inside the bench: lib/db/prisma.ts keeps one client per
// process, PGlite allows one process per data folder, and PGlite's engine runs in the calling
// process, so its CPU would otherwise be charged to the load generator.
//
// Protocol (IPC, one request at a time): the worker says { ready: true, queries } once loaded
// (queries: which data-layer function each query times, for the report), then answers
// { op: "seed" } | { op: "run", query, concurrency, seconds } | { op: "close" } with { result } or
// { error }; after "close" it exits.
import { createJiti } from "jiti";
import { closedLoop } from "./closed-loop.mjs";
import { LIST_ARGS, TARGET_WORLD_ID, checkWorld, checkWorldPage, seedRows } from "./seed-data.mjs";

// The app is TypeScript (and so is the generated client); jiti compiles it on import.
const jiti = createJiti(import.meta.url);
const { getPrisma, closePrisma } = await jiti.import("../lib/db/prisma.ts");
const worlds = await jiti.import("../lib/worlds/data/worlds.ts");
const { DEV_SUBJECT } = await jiti.import("../lib/authorization-server/key-file.ts");

/**
 * The data-layer calls behind the tools (lib/worlds/tools/data/world-tools.ts): keep them in step
 * with what the handlers call, or these rows stop being the tools' floor. get_world's handler
 * reads the world card (counts plus the first characters and places) where the data layer has
 * one, and getWorld (counts only) before it did; the report names the function timed.
 */
const readWorld = worlds.getWorldCard ? "getWorldCard" : "getWorld";
const QUERIES = {
  get_world: {
    name: readWorld,
    call: async () => {
      const w = await worlds[readWorld](DEV_SUBJECT, TARGET_WORLD_ID);
      return checkWorld({ id: w.id, counts: w._count });
    },
  },
  list_worlds: {
    name: "listWorlds",
    call: async () => checkWorldPage((await worlds.listWorlds(DEV_SUBJECT, LIST_ARGS)).items),
  },
};

async function seed() {
  const { worlds: w, characters, locations } = seedRows(DEV_SUBJECT);
  const prisma = await getPrisma();
  // Parents first: locations point at worlds and at their parent location (listed before them).
  await prisma.world.createMany({ data: w });
  await prisma.character.createMany({ data: characters });
  await prisma.location.createMany({ data: locations });
  return { worlds: w.length, characters: characters.length, locations: locations.length };
}

/** One cell; cpuMs is this whole process (Prisma, the driver and, for PGlite, the database). */
async function run({ query, concurrency, seconds }) {
  const call = QUERIES[query]?.call;
  if (!call) throw new Error(`unknown query ${query}`);
  const cpu0 = process.cpuUsage();
  const cell = await closedLoop({ concurrency, seconds, call });
  const cpu = process.cpuUsage(cpu0);
  return { ...cell, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const OPS = { seed, run, close: () => closePrisma() };

process.on("message", async (message) => {
  let answer;
  try {
    const op = OPS[message.op];
    if (!op) throw new Error(`unknown op ${message.op}`);
    answer = { result: (await op(message)) ?? {} };
  } catch (err) {
    answer = { error: String(err?.stack ?? err) };
  }
  // After "close", once the answer is out, the open channel is all that keeps the process alive.
  process.send(answer, () => {
    if (message.op === "close") process.disconnect();
  });
});
// If the bench dies, its end of the channel closes: do not linger on open database connections.
process.on("disconnect", () => process.exit(0));
process.send({ ready: true, queries: Object.fromEntries(Object.entries(QUERIES).map(([query, q]) => [query, q.name])) });
