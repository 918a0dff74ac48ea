// Which database the db:* scripts act on: PostgreSQL when DATABASE_URL is set, otherwise the
// embedded PGlite database under PGLITE_DATA_DIR (default .data/pglite) — the same rule as
// lib/db/prisma.ts, which these plain-JS scripts cannot import.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lockEmbeddedDatabase } from "../../lib/db/pglite-lock.mjs";

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
export const DEFAULT_PGLITE_DATA_DIR = ".data/pglite";

/** @returns {{ kind: "postgres", url: string } | { kind: "pglite", dataDir: string }} */
export function databaseTarget(env = process.env) {
  if (env.DATABASE_URL) return { kind: "postgres", url: env.DATABASE_URL };
  return { kind: "pglite", dataDir: resolve(projectRoot, env.PGLITE_DATA_DIR || DEFAULT_PGLITE_DATA_DIR) };
}

/** A printable name for the target, without the password. */
export function describeTarget(target) {
  if (target.kind === "pglite") return `PGlite at ${target.dataDir}`;
  const url = new URL(target.url);
  return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}${url.search}`;
}

/**
 * Opens the migration adapter factory for `target`.
 * @returns {Promise<{ adapterFactory: object, close: () => Promise<void> }>}
 */
export async function openMigrationAdapter(target) {
  if (target.kind === "postgres") {
    const { createPgMigrationAdapterFactory } = await import("./pg-migration-adapter.mjs");
    const adapterFactory = createPgMigrationAdapterFactory(target.url);
    return { adapterFactory, close: () => adapterFactory.close() };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { createPGliteMigrationAdapterFactory } = await import("./pglite-migration-adapter.mjs");
  mkdirSync(target.dataDir, { recursive: true });
  // PGlite allows one process per data directory: a running server holds it (lib/db/pglite-lock.mjs),
  // so migrate before starting the server (npm run dev and npm start do), not beside it. A second
  // `npm start` stops here, before it opens the folder, with the holder named.
  const release = lockEmbeddedDatabase(target.dataDir, "a db script");
  let db;
  try {
    db = await PGlite.create(target.dataDir);
  } catch (thrown) {
    release();
    // PGlite reports a folder it cannot read as "Aborted()", which names nothing.
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    throw new Error(
      `the embedded database ${target.dataDir} could not be opened (PGlite: ${why.split("\n")[0]}). ` +
        `It may be damaged, or not a PGlite folder: move it aside to start with an empty database (or restore a copy), or set DATABASE_URL.`,
    );
  }
  const adapterFactory = createPGliteMigrationAdapterFactory(db);
  return { adapterFactory, close: () => db.close().finally(release) };
}
