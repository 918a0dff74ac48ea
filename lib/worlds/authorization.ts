import { loadEnv } from "../config/env";
import { resolveAuthSettings } from "../auth/auth-settings";
import { createResourceServer, type ResourceServer } from "../auth/resource-server";
import { WORLD_SCOPES } from "./scopes";

let server: ResourceServer | undefined;

/**
 * WorldCrafter as a protected resource, made once per process from the validated environment:
 * the MCP endpoint checks tokens with it and the /.well-known routes publish its metadata.
 * Throws AuthConfigError on a bad configuration (instrumentation.ts makes that stop start-up).
 */
export function worldcrafterResourceServer(): ResourceServer {
  server ??= createResourceServer(resolveAuthSettings(loadEnv(), WORLD_SCOPES));
  return server;
}
