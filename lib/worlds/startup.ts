import { resolve } from "node:path";
import { loadEnv } from "../config/env";
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from "../db/pglite-lock.mjs";
import { worldcrafterResourceServer } from "./authorization";

/**
 * The authorization configuration is checked when the server starts, so a server that may not
 * run — an external issuer without a resource URL, bad algorithms — exits with a message
 * naming the variable. (Next only logs an error thrown from register() and keeps serving, which
 * would answer every request with a 500.)
 */
export function checkStartup(): void {
  try {
    worldcrafterResourceServer();
    holdEmbeddedDatabase();
  } catch (thrown) {
    console.error(`WorldCrafter cannot start: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    process.exit(1);
  }
}

/**
 * With no DATABASE_URL the server holds the embedded database's folder from start-up, though
 * PGlite opens it on the first statement: a second server on the same folder (another port, or
 * `npm start` run twice) stops at once with the holder named, instead of serving from its own
 * copy and losing the writes of one of them (lib/db/pglite-lock.mjs). A folder that cannot be
 * made is left to the first statement, which /api/health reports.
 */
function holdEmbeddedDatabase(): void {
  const env = loadEnv();
  if (env.DATABASE_URL) return;
  try {
    lockEmbeddedDatabase(resolve(/*turbopackIgnore: true*/ process.cwd(), env.PGLITE_DATA_DIR), "a WorldCrafter server");
  } catch (thrown) {
    if (thrown instanceof EmbeddedDatabaseBusy) throw thrown;
  }
}
