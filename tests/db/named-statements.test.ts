import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/prisma";
import { statementName } from "../../lib/db/named-statements";
import { testSchema } from "../support/test-database";

/**
 * sql() on PostgreSQL runs named prepared statements (planned once per connection), except behind
 * a transaction pooler (`?pgbouncer=true`). Checked in pg_prepared_statements, which lists the
 * statements prepared on the asking connection: sequential calls reuse one pooled connection.
 */
const schema = testSchema("named_stmt");
afterAll(() => schema.drop());

const STATEMENT = "SELECT $1::int + 1 AS n";
const PREPARED = "SELECT name, statement FROM pg_prepared_statements ORDER BY name";

async function preparedAfterTwoRuns(url: string) {
  const db = openDatabase({ DATABASE_URL: url, PGLITE_DATA_DIR: "" });
  try {
    expect(await db.sql<{ n: number }>(STATEMENT, [1])).toEqual([{ n: 2 }]);
    expect(await db.sql<{ n: number }>(STATEMENT, [41])).toEqual([{ n: 42 }]);
    return await db.sql<{ name: string; statement: string }>(PREPARED, []);
  } finally {
    await db.close();
  }
}

describe("sql() statements on PostgreSQL", () => {
  it("are prepared once under a stable name per text", async () => {
    const rows = await preparedAfterTwoRuns(schema.url);
    expect(rows).toContainEqual({ name: statementName(STATEMENT), statement: STATEMENT });
    expect(rows.filter((r) => r.statement === STATEMENT)).toHaveLength(1);
  });

  it("are sent unnamed with ?pgbouncer=true (transaction poolers cannot keep them)", async () => {
    expect(await preparedAfterTwoRuns(`${schema.url}&pgbouncer=true`)).toEqual([]);
  });
});

describe("statementName", () => {
  it("names a text the same way every time, and different texts differently", () => {
    expect(statementName("SELECT 1")).toBe(statementName("SELECT 1"));
    expect(statementName("SELECT 1")).not.toBe(statementName("SELECT 2"));
    expect(statementName("SELECT 1")).toMatch(/^wc_[0-9a-f]{24}$/);
  });

  it("stops naming once texts look built at run time, so nothing grows without bound", () => {
    const given = Array.from({ length: 400 }, (_, i) => statementName(`SELECT ${i} AS built_at_run_time`));
    expect(given.filter((name) => name === undefined).length).toBeGreaterThan(0);
    // Texts named before the bound keep their names.
    expect(statementName("SELECT 1")).toMatch(/^wc_/);
  });
});
