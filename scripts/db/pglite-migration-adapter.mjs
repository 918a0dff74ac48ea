// A driver adapter factory for running the schema engine against an embedded PGlite database.
//
// pglite-prisma-adapter (0.7.2) needs two fixes for migrations: its executeScript does not await
// PGlite's exec (a failing migration would surface as an unhandled rejection after the engine has
// moved on), and the in-memory PGlite it opens as the shadow database is never closed.
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { delegateAdapter } from "./delegate-adapter.mjs";

/** Runs `script` whole on `db`, failing the way the adapter's own queries fail. */
function awaitedScripts(adapter, db) {
  return async (script) => {
    try {
      await db.exec(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
}

/** @param {PGlite} db an open PGlite (one process per data directory: the caller owns it) */
export function createPGliteMigrationAdapterFactory(db) {
  const factory = new PrismaPGlite(db);
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      return delegateAdapter(adapter, { executeScript: awaitedScripts(adapter, db) });
    },
    async close() {
      // The caller owns `db`; shadow databases are closed by their own dispose.
    },
    async connectToShadowDb() {
      const shadow = new PGlite(); // in memory, gone when closed
      const adapter = await new PrismaPGlite(shadow).connect();
      return delegateAdapter(adapter, {
        executeScript: awaitedScripts(adapter, shadow),
        dispose: () => shadow.close(),
      });
    },
  };
}
