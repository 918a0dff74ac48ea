import pg from "pg";
import type { RunningNextServer } from "./next-server.mjs";
import { startOwnServer } from "./own-server";
import { migratedTestSchema, type TestSchema } from "./test-database";

/**
 * A production server of a suite's own (startOwnServer) over a migrated PostgreSQL schema of its
 * own, and a pg client on that schema, for what a suite arranges or checks underneath the tools
 * (rows written before a migration, a lock held by another transaction). `stop` ends all three.
 */
export interface SchemaServer {
  server: RunningNextServer;
  /** A connection of the test's own, its search_path the schema. */
  db: pg.Client;
  database: TestSchema;
  stop(): Promise<void>;
}

export async function startSchemaServer(prefix: string, env: Record<string, string> = {}): Promise<SchemaServer> {
  const database = await migratedTestSchema(prefix);
  const db = new pg.Client({ connectionString: database.baseUrl, options: `-c search_path="${database.schema}"` });
  let server: RunningNextServer | undefined;
  try {
    await db.connect();
    server = await startOwnServer({ DATABASE_URL: database.url, ...env });
  } catch (thrown) {
    await db.end().catch(() => undefined);
    await database.drop();
    throw thrown;
  }
  const started = server;
  return {
    server: started,
    db,
    database,
    async stop() {
      await started.stop();
      await db.end();
      await database.drop();
    },
  };
}
