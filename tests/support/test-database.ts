import { randomUUID } from "node:crypto";
import pg from "pg";

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
