// The migration commands, each one schema engine call: what `prisma migrate dev --create-only`,
// `migrate deploy`, `migrate status` and `migrate diff` do, minus the native engine.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readMigrationList, writeMigration } from "./migrations-dir.mjs";
import { openSchemaEngine } from "./schema-engine.mjs";
import { openMigrationAdapter, projectRoot } from "./target.mjs";

export const SCHEMA_PATH = join(projectRoot, "prisma/schema.prisma");
export const MIGRATIONS_DIR = join(projectRoot, "prisma/migrations");
const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** Runs `fn(engine, context)` against `target`, then releases the engine and the database. */
async function withEngine(target, options, fn) {
  const schemaPath = options.schemaPath ?? SCHEMA_PATH;
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const schema = await readFile(schemaPath, "utf8");
  const { adapterFactory, close } = await openMigrationAdapter(target);
  try {
    const engine = await openSchemaEngine({ schemaPath, schema, adapterFactory, log: options.log });
    try {
      const migrationsList = await readMigrationList(migrationsDir);
      return await fn(engine, { schema: { files: [{ path: schemaPath, content: schema }] }, migrationsList });
    } finally {
      engine.free();
    }
  } finally {
    await close();
  }
}

/**
 * Writes a new migration holding the SQL that takes the migration history to the schema.
 *
 * Not engine.createMigration: in the wasm engine it replays the history without the adapter's
 * shadow database and fails ("PostgreSQL shadow DB must be provided through an external
 * factory"). diff() from the migrations folder does get the shadow database, and renders the
 * same SQL; we name and write the folder as the CLI does.
 */
export async function createMigration(target, name, options = {}) {
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const { script, changed } = await diff(target, { ...options, from: "migrations" });
  if (!changed && !options.draft) return { created: null };
  const migrationName = `${timestamp(new Date())}_${slug(name)}`;
  const dir = await writeMigration(migrationsDir, {
    generatedMigrationName: migrationName,
    extension: "sql",
    migrationScript: changed ? script : "-- This is an empty migration.\n",
    connectorType: "postgresql",
  });
  return { created: migrationName, dir };
}

/** UTC yyyyMMddHHmmss, the prefix that orders migration folders. */
function timestamp(date) {
  return date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

function slug(name) {
  const s = name.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  if (!s) throw new Error(`migration name ${JSON.stringify(name)} has no letters or digits`);
  return s.slice(0, 100);
}

/** Applies every migration not yet recorded in `_prisma_migrations`. */
export function deploy(target, options = {}) {
  return withEngine(target, options, async (engine, { migrationsList }) => {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
    return { applied: appliedMigrationNames, total: migrationsList.migrationDirectories.length };
  });
}

/** The database's migration history against the folder; `clean` when nothing is pending or wrong. */
export function status(target, options = {}) {
  return withEngine(target, options, async (engine, { migrationsList }) => {
    const diagnosis = await engine.diagnoseMigrationHistory({
      migrationsList,
      optInToShadowDatabase: false,
      filters: NO_FILTERS,
    });
    const clean =
      diagnosis.history === null &&
      diagnosis.failedMigrationNames.length === 0 &&
      diagnosis.editedMigrationNames.length === 0;
    return { clean, total: migrationsList.migrationDirectories.length, ...diagnosis };
  });
}

/**
 * The SQL between two states. Default: from the migrations (replayed on a shadow database) to the
 * schema — non-empty means the schema changed without a migration. `from: "database"` compares
 * the live database with the schema instead (drift).
 */
export function diff(target, options = {}) {
  return withEngine(target, options, async (engine, { schema, migrationsList }) => {
    const from =
      options.from === "database"
        ? { tag: "schemaDatasource", files: schema.files, configDir: projectRoot }
        : { tag: "migrations", ...withLockfile(migrationsList) };
    const result = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", ...schema },
      script: true,
      exitCode: true,
      filters: NO_FILTERS,
    });
    return { script: result.stdout ?? "", changed: result.exitCode === 2 };
  });
}

/**
 * Before the first migration there is no lock file to name the connector, and the engine refuses
 * an unnamed history. Diffing from `empty` instead would add a `CREATE SCHEMA "public"` the
 * native first migration does not have, so we name the connector for it.
 */
function withLockfile(migrationsList) {
  if (migrationsList.lockfile.content !== null || migrationsList.migrationDirectories.length > 0) return migrationsList;
  return { ...migrationsList, lockfile: { ...migrationsList.lockfile, content: 'provider = "postgresql"\n' } };
}
