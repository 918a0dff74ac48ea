import { loadEnv } from "../config/env";
import { resolveAuthSettings } from "../auth/auth-settings";
import { createResourceServer, type ResourceServer } from "../auth/resource-server";
import { createBuiltinAuthorizationServer, type BuiltinAuthorizationServer } from "../authorization-server/auth-server";
import { resolveAuthServerSettings } from "../authorization-server/settings";
import { worldcrafterResource } from "./resource";
import { WORLD_SCOPES } from "./scopes";

let server: ResourceServer | undefined;
let builtin: BuiltinAuthorizationServer | undefined;

/**
 * WorldCrafter as a protected resource, made once per process from the validated environment:
 * the MCP endpoint checks tokens with it and the /.well-known routes publish its metadata.
 * With no MCP_AUTH_ISSUER, its issuer is the built-in authorization server (builtinAuthServer).
 * Throws AuthConfigError on a bad configuration (instrumentation.ts makes that stop start-up).
 */
export function worldcrafterResourceServer(): ResourceServer {
  if (server) return server;
  const env = loadEnv();
  const settings = resolveAuthSettings(env, WORLD_SCOPES, worldcrafterResource(env));
  if (settings.issuer.kind === "builtin") builtin = createBuiltinAuthorizationServer(resolveAuthServerSettings(env, settings));
  server = createResourceServer(settings, builtin);
  return server;
}

/**
 * The built-in authorization server, or why there is none: an external issuer is configured
 * (`external`), or the deployment lacks what it needs (`problems`, each naming its variable).
 */
export function builtinAuthServer(): { kind: "ready"; server: BuiltinAuthorizationServer } | { kind: "external" } | { kind: "unavailable"; problems: readonly string[] } {
  const resource = worldcrafterResourceServer();
  if (!builtin) return { kind: "external" };
  if (resource.settings.problems.length > 0) return { kind: "unavailable", problems: resource.settings.problems };
  return { kind: "ready", server: builtin };
}
