import { inject } from "vitest";
import pg from "pg";

/**
 * The app's two databases as the tests reach them: the same `next start` build over PostgreSQL
 * (a fresh schema of `test`) and over an embedded PGlite folder. Suites that must hold on both
 * run once per entry with `describe.each(DATABASE_SERVERS)`.
 */
export const DATABASE_SERVERS = [
  { database: "PostgreSQL", server: () => inject("statefulUrl") },
  { database: "PGlite", server: () => inject("pgliteUrl") },
] as const;

/**
 * Runs SQL on the PostgreSQL servers' own schema (`$schema` in `sql` names it). PGlite's folder
 * belongs to its server process, so only PostgreSQL can be inspected from outside.
 */
export async function queryServersDatabase<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const url = new URL(inject("databaseUrl"));
  const schema = url.searchParams.get("schema")!;
  url.search = "";
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const { rows } = await db.query(sql.replaceAll("$schema", `"${schema}"`), params);
    return rows as T[];
  } finally {
    await db.end();
  }
}
