// examples/notes/endpoint.ts: the endpoint, the core with its adapters: who may call (auth) and how often (rate limits).
import { resolveAuthSettings } from "@/lib/auth/auth-settings";
import { createResourceServer, type ResourceServer } from "@/lib/auth/resource-server";
import { loadEnv, type Env } from "@/lib/config/env";
import { onProcessShutdown } from "@/lib/http/process-shutdown";
import { createMcpEndpoint, endLongLivedStreams, type McpEndpoint } from "@/lib/mcp";
import { createRequestLimiter } from "@/lib/ratelimit/create-limiter";
import { limiterSettingsOf } from "@/lib/ratelimit/settings";
import { NOTES_SCOPES, notesContents } from "./notes";

/** Where the route is mounted (app/api/notes/route.ts): the deployment's origin and this path are the resource's URL, its tokens' audience. */
export const NOTES_PATH = "/api/notes";

/** Its protected resource: tokens from the deployment's issuer (MCP_AUTH_ISSUER) whose `aud` is this endpoint's URL, and no other. */
export function createNotesResourceServer(env: Env): ResourceServer {
  return createResourceServer(resolveAuthSettings(env, NOTES_SCOPES, { path: NOTES_PATH, name: "Notes" }));
}

export function createNotesEndpoint(env: Env, resourceServer: ResourceServer): McpEndpoint {
  // Budgets per caller (MCP_RATE_LIMIT_*), counted apart from any other endpoint's in a shared Redis.
  const limiter = env.MCP_RATE_LIMITS ? createRequestLimiter({ ...limiterSettingsOf(env), keyPrefix: `${env.MCP_CLUSTER_PREFIX}:notes-limits` }) : undefined;
  return createMcpEndpoint(
    { info: { name: "notes", title: "Notes", version: "1.0.0" }, instructions: "Keeps the user's short notes.", contents: notesContents },
    env,
    { access: resourceServer.access, ...(limiter ? { limiter } : {}) },
  );
}

let resourceServer: ResourceServer | undefined;
let endpoint: McpEndpoint | undefined;

/** Made on first use, not at import: `next build` imports the route files with no configuration. */
export function notesResourceServer(): ResourceServer {
  return (resourceServer ??= createNotesResourceServer(loadEnv()));
}

export function notesEndpoint(): McpEndpoint {
  if (endpoint) return endpoint;
  endpoint = createNotesEndpoint(loadEnv(), notesResourceServer());
  // On SIGTERM, end the open event streams (GET streams, listens) so the server can exit: they never end by themselves.
  onProcessShutdown(endLongLivedStreams);
  return endpoint;
}
