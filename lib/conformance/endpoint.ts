import { loadEnv } from "../config/env";
import { createMcpEndpoint, type McpEndpoint } from "../mcp";
import { conformanceFixtureServer } from "./fixture-server";
import { provideFixtureRegistry } from "./fixture-registry";
import { clusterOf } from "../cluster/create-cluster";

let endpoint: McpEndpoint | undefined;

/** The fixture endpoint, or undefined when configuration leaves it off (the route then 404s). */
export function conformanceEndpoint(): McpEndpoint | undefined {
  const env = loadEnv();
  if (!env.MCP_CONFORMANCE_FIXTURES) return undefined;
  // Shared like the product's when a store is configured: the suite may run across instances.
  if (!endpoint) {
    endpoint = createMcpEndpoint(conformanceFixtureServer, env, { cluster: clusterOf(env, "conformance") });
    provideFixtureRegistry(endpoint.registry);
  }
  return endpoint;
}
