import type { Env } from "../config/env";
import { resourceFromEnv, type ProtectedResource } from "../auth/auth-settings";

/** Where WorldCrafter's MCP endpoint is mounted (app/api/mcp/route.ts). */
export const MCP_ENDPOINT_PATH = "/api/mcp";

/**
 * WorldCrafter's endpoint as a protected resource: the one the MCP_RESOURCE_* variables describe
 * (MCP_RESOURCE_URL is its canonical URL, the tokens' audience).
 */
export function worldcrafterResource(env: Pick<Env, "MCP_RESOURCE_URL" | "MCP_RESOURCE_NAME" | "MCP_RESOURCE_DOCUMENTATION" | "MCP_AUTH_AUDIENCE" | "MCP_AUTH_IMPLICIT_SCOPES">): ProtectedResource {
  return resourceFromEnv(env, MCP_ENDPOINT_PATH);
}
