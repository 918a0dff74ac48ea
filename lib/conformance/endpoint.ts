import { loadEnv } from "../config/env";
import { createMcpEndpoint, endLongLivedStreams, type McpEndpoint } from "../mcp";
import type { Platform } from "../http/platform";
import { conformanceFixtureServer } from "./fixture-server";
import { provideFixtureRegistry } from "./fixture-registry";
import { clusterOf } from "../cluster/create-cluster";
import { tasksOf } from "../tasks/create-tasks";

let endpoint: McpEndpoint | undefined;

/** The fixture endpoint, or undefined when configuration leaves it off (the route then 404s). */
export function conformanceEndpoint(platform: Platform = {}): McpEndpoint | undefined {
  const env = loadEnv();
  if (!env.MCP_CONFORMANCE_FIXTURES) return undefined;
  // Shared like the product's when a store is configured: the suite may run across instances.
  if (!endpoint) {
    const tasks = tasksOf(env, platform.afterResponse);
    endpoint = createMcpEndpoint(conformanceFixtureServer, env, { cluster: clusterOf(env, "conformance"), ...(tasks ? { tasks } : {}) });
    provideFixtureRegistry(endpoint.registry);
    platform.onShutdown?.(endLongLivedStreams);
  }
  return endpoint;
}
