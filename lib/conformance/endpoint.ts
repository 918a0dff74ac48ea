import { loadEnv } from "../config/env";
import { createMcpEndpoint, type McpEndpoint } from "../mcp";
import { conformanceFixtureServer } from "./fixture-server";

let endpoint: McpEndpoint | undefined;

/** The fixture endpoint, or undefined when configuration leaves it off (the route then 404s). */
export function conformanceEndpoint(): McpEndpoint | undefined {
  const env = loadEnv();
  if (!env.MCP_CONFORMANCE_FIXTURES) return undefined;
  endpoint ??= createMcpEndpoint(conformanceFixtureServer, env);
  return endpoint;
}
