import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
// A plain ESM helper shared with the conformance runner and the benchmark.
import { ROOT, startNextServer, type RunningNextServer } from "./next-server.mjs";
import { testSchema } from "./test-database";

const run = promisify(execFile);

/**
 * The servers' database: a fresh schema of the PostgreSQL `test` database, migrated here before
 * the servers start and dropped afterwards. PostgreSQL rather than a temporary PGlite folder
 * because the two servers below must share their data like two instances of one deployment do,
 * and PGlite allows one process per data directory.
 */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const { url, schema, drop } = testSchema("wc_e2e");
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  try {
    await run(process.execPath, ["scripts/db/migrate.mjs", "deploy"], { cwd: ROOT, env: { ...inherited, DATABASE_URL: url } });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`Migrating the test database ${schema} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  return { url, drop };
}

/**
 * Starts the real production servers once for the whole run: the tests talk to them over HTTP
 * exactly as clients do. `npm test` builds first; a missing build is a clear error, not a hang.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = await freshDatabase();
  // Both servers share one requestState key and one database, as the instances of one deployment must.
  const common = {
    MCP_CONFORMANCE_FIXTURES: "1",
    MCP_RESUME_GRACE_MS: "1000",
    MCP_SSE_KEEPALIVE_MS: "5000",
    MCP_REQUEST_STATE_SECRET: "test-only-request-state-secret-0123456789abcdef",
    DATABASE_URL: database.url,
  };
  let servers: RunningNextServer[];
  try {
    servers = await Promise.all([
      startNextServer({ env: { ...common } }),
      startNextServer({ env: { ...common, MCP_SESSION_MODE: "stateless" } }),
    ]);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const [stateful, stateless] = servers as [RunningNextServer, RunningNextServer];
  project.provide("statefulUrl", stateful.url);
  project.provide("statelessUrl", stateless.url);
  project.provide("databaseUrl", database.url);
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database.drop();
  };
}
