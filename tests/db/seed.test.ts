import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testSchema } from "../support/test-database";

/** `npm run db:seed` fills a migrated database with the sample worlds, and reruns change nothing. */
const run = promisify(execFile);
const root = join(__dirname, "../..");
const database = testSchema("wc_seed");

async function npm(args: string[]): Promise<string> {
  const { PGLITE_DATA_DIR: _dir, ...inherited } = process.env;
  const { stdout } = await run("npm", ["run", "--silent", ...args], { cwd: root, env: { ...inherited, DATABASE_URL: database.url } });
  return stdout;
}

async function counts(): Promise<Record<string, number>> {
  const db = new pg.Client({ connectionString: database.baseUrl });
  await db.connect();
  try {
    const s = `"${database.schema}"`;
    const { rows } = await db.query(
      `SELECT "ownerSubject" AS owner, (SELECT count(*) FROM ${s}."World" w WHERE w."ownerSubject" = o."ownerSubject")::int AS worlds
         FROM (SELECT DISTINCT "ownerSubject" FROM ${s}."World") o`,
    );
    const chars = await db.query(`SELECT count(*)::int AS n FROM ${s}."Character"`);
    const places = await db.query(`SELECT count(*)::int AS n FROM ${s}."Location" WHERE "parentId" IS NOT NULL`);
    return { ...Object.fromEntries(rows.map((r: { owner: string; worlds: number }) => [r.owner, r.worlds])), characters: chars.rows[0].n, nested: places.rows[0].n };
  } finally {
    await db.end();
  }
}

describe("npm run db:seed", () => {
  beforeAll(() => npm(["db:deploy"]), 120_000);
  afterAll(() => database.drop());

  it("adds the sample worlds for the development subject, idempotently, and for another subject on request", async () => {
    expect(await npm(["db:seed"])).toContain('"dev-user" now owns 3');
    await npm(["db:seed"]);
    expect(await counts()).toEqual({ "dev-user": 3, characters: 3, nested: 1 });
    expect(await npm(["db:seed", "--", "--sub", "alice"])).toContain('"alice" now owns 3');
    expect(await counts()).toEqual({ "dev-user": 3, alice: 3, characters: 6, nested: 2 });
  }, 120_000);
});
