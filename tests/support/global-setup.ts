import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// A plain ESM helper shared with the conformance runner and the benchmark.
import { freePort, startNextServer, type RunningNextServer } from "./next-server.mjs";
import { migrateDatabase, testSchema } from "./test-database";

/**
 * The servers' database: a fresh schema of the PostgreSQL `test` database, migrated here before
 * the servers start and dropped afterwards. PostgreSQL rather than a temporary PGlite folder
 * because the two servers below must share their data like two instances of one deployment do,
 * and PGlite allows one process per data directory.
 */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const { url, schema, drop } = testSchema("wc_e2e");
  await migrateDatabase({ DATABASE_URL: url });
  return { url, drop };
}

/** A migrated embedded database in a folder of its own, for the server that runs on PGlite. */
async function freshPglite(): Promise<{ dir: string; drop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "wc-e2e-pglite-"));
  await migrateDatabase({ PGLITE_DATA_DIR: dir });
  return { dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the real production servers once for the whole run: the tests talk to them over HTTP
 * exactly as clients do. `npm test` builds first; a missing build is a clear error, not a hang.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [database, pglite] = await Promise.all([freshDatabase(), freshPglite()]);
  // The built-in authorization server's keys live in this folder; tests sign tokens with them.
  const devIssuerDir = mkdtempSync(join(tmpdir(), "wc-e2e-issuer-"));
  // Both servers share one requestState key and one database, as the instances of one deployment must.
  const common = {
    MCP_CONFORMANCE_FIXTURES: "1",
    MCP_RESUME_GRACE_MS: "1000",
    MCP_SSE_KEEPALIVE_MS: "5000",
    MCP_REQUEST_STATE_SECRET: "test-only-request-state-secret-0123456789abcdef",
    DATABASE_URL: database.url,
    // Anonymous callers reach the open tools (most protocol tests); data tools need tokens.
    MCP_AUTH_MODE: "mixed",
    BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
    MCP_AUTH_KEYS_DIR: devIssuerDir,
    // The limiter runs (in memory) on every test request, with budgets no suite reaches: the
    // suites share one client address. tests/edge proves the limits themselves.
    MCP_RATE_LIMIT_TOOLS_LIST: "1000000",
    MCP_RATE_LIMIT_TOOLS_CALL: "1000000",
    MCP_RATE_LIMIT_OTHER: "1000000",
    MCP_MAX_STREAMS_PER_CALLER: "1000",
    // import_world may fetch files from the tests' own loopback http servers (tests/worlds/world-files.test.ts).
    MCP_IMPORT_ALLOW_LOOPBACK: "1",
  };
  /** next start on its own port, which is also its resource URL: the tokens' audience. */
  const start = async (env: Record<string, string>) => {
    const port = await freePort();
    return startNextServer({ port, env: { ...env, MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp` } });
  };
  let servers: RunningNextServer[];
  const { DATABASE_URL: _url, ...withoutDatabase } = common;
  try {
    servers = await Promise.all([
      start({ ...common }),
      start({ ...common, MCP_SESSION_MODE: "stateless" }),
      // The zero-setup default: the same app on an embedded PGlite database.
      start({ ...withoutDatabase, DATABASE_URL: "", PGLITE_DATA_DIR: pglite.dir }),
    ]);
  } catch (error) {
    await Promise.all([database.drop(), pglite.drop()]);
    rmSync(devIssuerDir, { recursive: true, force: true });
    throw error;
  }
  const [stateful, stateless, embedded] = servers as [RunningNextServer, RunningNextServer, RunningNextServer];
  project.provide("statefulUrl", stateful.url);
  project.provide("statelessUrl", stateless.url);
  project.provide("pgliteUrl", embedded.url);
  project.provide("databaseUrl", database.url);
  project.provide("devIssuerDir", devIssuerDir);
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all([database.drop(), pglite.drop()]);
    rmSync(devIssuerDir, { recursive: true, force: true });
  };
}
