import { loadEnv } from "../config/env";
import { createMcpEndpoint, type McpEndpoint } from "../mcp";
import { worldcrafterServer } from "./server-definition";

let endpoint: McpEndpoint | undefined;

/** The product endpoint, built once per process on first use. */
export function worldcrafterEndpoint(): McpEndpoint {
  endpoint ??= createMcpEndpoint(worldcrafterServer, loadEnv());
  return endpoint;
}
