import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import pg from "pg";
import { ROOT } from "./next-server.mjs";
import { pgTransaction } from "../../lib/db/transaction";
import type { TaskRecord, TaskStore } from "../../lib/mcp/tasks/store";
import { sqlTaskStore } from "../../lib/tasks/sql-task-store";

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

/**
 * The durable-task store over a migrated schema of its own, on a pool of several connections (as
 * an instance has): lib/db's `sql` and `transaction`, over a test pool. `close` ends the pool and
 * drops the schema.
 */
export async function taskStoreOnTestSchema(prefix: string): Promise<{
  store: TaskStore;
  pool: pg.Pool;
  /** The task once it is no longer working (polled, at most 5 s). */
  ended(id: string, owner: string): Promise<TaskRecord>;
  close(): Promise<void>;
}> {
  const schema = await migratedTestSchema(prefix);
  const pool = new pg.Pool({ connectionString: schema.baseUrl, options: `-c search_path="${schema.schema}"`, max: 8 });
  const store = sqlTaskStore(async <T>(text: string, params: readonly unknown[]) => (await pool.query(text, [...params])).rows as T[], (work) => pgTransaction(pool, work));
  return {
    store,
    pool,
    async ended(id, owner) {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const task = await store.get(id, owner, new Date());
        if (task && task.status !== "working") return task;
        if (Date.now() > deadline) throw new Error(`task ${id} still ${task?.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await pool.end();
      await schema.drop();
    },
  };
}
