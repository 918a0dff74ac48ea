import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import pg from "pg";
import { ROOT } from "./next-server.mjs";

/**
 * A schema of its own in the shared PostgreSQL `test` database, so reruns and parallel runs never
 * collide; dropped when the test is done.
 */
export interface TestSchema {
  baseUrl: string;
  schema: string;
  /** DATABASE_URL naming the schema (Prisma's `?schema=` convention). */
  url: string;
  drop(): Promise<void>;
}

export function testSchema(prefix: string): TestSchema {
  const baseUrl = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const schema = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  return {
    baseUrl,
    schema,
    url: `${baseUrl}?schema=${schema}`,
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * `npm run db:deploy` against one database — `{ DATABASE_URL }` or `{ PGLITE_DATA_DIR }` — with
 * none of the caller's own database settings leaking in.
 */
export async function migrateDatabase(target: { DATABASE_URL: string } | { PGLITE_DATA_DIR: string }): Promise<void> {
  const { DATABASE_URL: _url, PGLITE_DATA_DIR: _dir, ...inherited } = process.env;
  try {
    await promisify(execFile)(process.execPath, ["scripts/db/migrate.mjs", "deploy"], { cwd: ROOT, env: { ...inherited, ...target } });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`Migrating ${JSON.stringify(target)} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** A fresh schema of the `test` database, migrated: DATABASE_URL for a server of the test's own. */
export async function migratedTestSchema(prefix: string): Promise<TestSchema> {
  const schema = testSchema(prefix);
  await migrateDatabase({ DATABASE_URL: schema.url });
  return schema;
}

/** One statement on a pool, and statements in one transaction on one of its connections: lib/db's `sql` and `transaction`, over a test pool. */
export function poolRunners(pool: pg.Pool): {
  run: <T>(text: string, params: readonly unknown[]) => Promise<T[]>;
  transaction: <T>(work: (run: <R>(text: string, params: readonly unknown[]) => Promise<R[]>) => Promise<T>) => Promise<T>;
} {
  return {
    run: async <T>(text: string, params: readonly unknown[]) => (await pool.query(text, [...params])).rows as T[],
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(async <R>(text: string, params: readonly unknown[]) => (await client.query(text, [...params])).rows as R[]);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
