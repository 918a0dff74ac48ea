import type { TestProject } from "vitest/node";
// A plain ESM helper shared with the conformance runner and the benchmark.
import { startNextServer, type RunningNextServer } from "./next-server.mjs";

/**
 * Starts the real production servers once for the whole run: the tests talk to them over HTTP
 * exactly as clients do. `npm test` builds first; a missing build is a clear error, not a hang.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Both servers share one requestState key, as the instances of one deployment must.
  const common = {
    MCP_CONFORMANCE_FIXTURES: "1",
    MCP_RESUME_GRACE_MS: "1000",
    MCP_SSE_KEEPALIVE_MS: "5000",
    MCP_REQUEST_STATE_SECRET: "test-only-request-state-secret-0123456789abcdef",
  };
  const servers: RunningNextServer[] = await Promise.all([
    startNextServer({ env: { ...common } }),
    startNextServer({ env: { ...common, MCP_SESSION_MODE: "stateless" } }),
  ]);
  const [stateful, stateless] = servers as [RunningNextServer, RunningNextServer];
  project.provide("statefulUrl", stateful.url);
  project.provide("statelessUrl", stateless.url);
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
