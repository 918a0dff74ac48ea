// examples/notes/builtin-auth.ts: in an app of its own, the built-in authorization server instead of MCP_AUTH_ISSUER.
import { createResourceServer, type ResourceServer } from "@/lib/auth/resource-server";
import { resolveAuthSettings, resourceFromEnv } from "@/lib/auth/auth-settings";
import { createBuiltinAuthorizationServer } from "@/lib/authorization-server/auth-server";
import { resolveAuthServerSettings } from "@/lib/authorization-server/settings";
import type { Env } from "@/lib/config/env";
import { NOTES_PATH } from "./endpoint";
import { NOTES_SCOPES } from "./notes";

/** The app's one endpoint, so MCP_RESOURCE_URL and the other MCP_RESOURCE_* variables describe it; with no MCP_AUTH_ISSUER, this app issues its tokens. */
export function createNotesResourceServerWithBuiltinIssuer(env: Env): ResourceServer {
  const settings = resolveAuthSettings(env, NOTES_SCOPES, resourceFromEnv(env, NOTES_PATH));
  const builtin = settings.issuer.kind === "builtin" ? createBuiltinAuthorizationServer(resolveAuthServerSettings(env, settings)) : undefined;
  return createResourceServer(settings, builtin);
}
