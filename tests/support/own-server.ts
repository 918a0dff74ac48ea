import { inject } from "vitest";
import { freePort, startNextServer, type RunningNextServer } from "./next-server.mjs";

/** The BETTER_AUTH_SECRET the suites' own servers share (never a real deployment's). */
export const TEST_AUTH_SECRET = "test-only-better-auth-secret-0123456789abcdef";

/**
 * A production server of a suite's own, on a free port: the suites' database schema and dev
 * token issuer, mixed auth (anonymous allowed), its resource URL on that port. `env` adds to or
 * overrides that, for what the suite is about.
 */
export async function startOwnServer(env: Record<string, string> = {}): Promise<RunningNextServer> {
  const port = await freePort();
  return startNextServer({
    port,
    env: {
      DATABASE_URL: inject("databaseUrl"),
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
      MCP_AUTH_KEYS_DIR: inject("devIssuerDir"),
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      ...env,
    },
  });
}
