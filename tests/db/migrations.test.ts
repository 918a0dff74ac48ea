import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { testSchema } from "../support/test-database";
import { openDatabase } from "../../lib/db/prisma";

/**
 * The committed migrations take an empty database to the schema, on both databases we support,
 * through the same scripts a developer and a deployment run (npm run db:deploy / db:status).
 */
const run = promisify(execFile);
const root = join(__dirname, "../..");
const migrationNames = readdirSync(join(root, "prisma/migrations"), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** Runs `node scripts/db/migrate.mjs <args>` against `env`; resolves with the exit code and output. */
async function migrate(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  try {
    const { stdout } = await run(process.execPath, ["scripts/db/migrate.mjs", ...args], {
      cwd: root,
      env: { ...inherited, ...env },
    });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** empty → status behind → deploy → status clean → a row written and read through Prisma. */
async function provesMigrations(env: Record<string, string>): Promise<void> {
  const before = await migrate(["status"], env);
  expect(before.code, before.out).toBe(1);
  expect(before.out).toContain("databaseIsBehind");

  const deployed = await migrate(["deploy"], env);
  expect(deployed.code, deployed.out).toBe(0);
  for (const name of migrationNames) expect(deployed.out).toContain(name);

  const after = await migrate(["status"], env);
  expect(after.code, after.out).toBe(0);
  expect(after.out).toContain("Database schema is up to date.");

  // Deploy is idempotent, and the schema has no change the migrations lack.
  expect((await migrate(["deploy"], env)).out).toContain("No pending migrations.");
  expect(await migrate(["diff"], env)).toEqual({ code: 0, out: "-- No difference.\n" });

  const db = openDatabase({ DATABASE_URL: env.DATABASE_URL, PGLITE_DATA_DIR: env.PGLITE_DATA_DIR ?? "" });
  try {
    const prisma = await db.prisma();
    const world = await prisma.world.create({
      data: { ownerSubject: "test-subject", name: "Testoria", theme: "mystery" },
    });
    await prisma.location.create({
      data: { ownerSubject: "test-subject", worldId: world.id, name: "Old Mill", kind: "building" },
    });
    const read = await prisma.world.findFirst({
      where: { id: world.id, ownerSubject: "test-subject" },
      include: { _count: { select: { locations: true, characters: true } } },
    });
    expect(read).toMatchObject({ name: "Testoria", theme: "mystery", description: "", _count: { locations: 1, characters: 0 } });
    const applied = await prisma.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`,
    );
    expect(applied.map((r) => r.migration_name)).toEqual(migrationNames);
  } finally {
    await db.close();
  }
}

describe("migrations from empty to latest", () => {
  it("apply on a fresh embedded PGlite database, leave status clean, and serve the Prisma client", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wc-pglite-"));
    try {
      await provesMigrations({ PGLITE_DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Five processes each boot PGlite (Postgres in WebAssembly): about 50 s of CPU alone, 120 s
    // when the suite's workers run a browser and a `next dev` beside it on two cores (CI, Node 24).
  }, 300_000);

  const database = testSchema("wc_migrations");
  afterAll(() => database.drop());

  it("apply on PostgreSQL (a fresh schema), leave status clean, and serve the Prisma client", async () => {
    await provesMigrations({ DATABASE_URL: database.url });
  }, 120_000);
});
