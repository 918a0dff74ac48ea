import { loadEnv, type Env } from "../config/env";
import { metadataNotFound, metadataPreflight, metadataResponse, metadataUnavailable } from "../http/metadata-response";
import { originPolicyOf } from "../http/origin-guard";
import { logUnexpected } from "../log/operator-log";
import { signInUnavailable } from "./auth-settings";
import type { ResourceServer } from "./resource-server";

/**
 * The handlers of a /.well-known route: each serves one document of a resource server, with the
 * deployment's CORS policy. A route file only names which (through lib/http/route-methods.ts).
 */
export interface MetadataRoute {
  GET(request: Request): Promise<Response>;
  OPTIONS(request: Request): Response;
}

export type MetadataDocument = Record<string, unknown> | undefined;

/** Where a route finds its resource server (made on first use, not at import: `next build` imports route files with no configuration) and the CORS policy's variables. */
export interface MetadataSource {
  server: () => ResourceServer;
  env?: () => Pick<Env, "MCP_ALLOWED_ORIGINS" | "MCP_ALLOW_LOOPBACK_ORIGINS">;
}

/**
 * While the built-in server cannot run (no secret, no database on Vercel, no resource URL in
 * production) every document answers 503 naming what to set, never cached: the authorization
 * server's would be a 500 from keys that cannot be read, and the resource's own would name a
 * resource and an issuer on http://localhost:$PORT, publicly cacheable, sending a client that
 * skips RFC 9728 §3.3's check to its own machine (outside audit, 2026-11-27). A document that
 * cannot be had for any other reason is a 502.
 */
export function metadataRoute(
  source: MetadataSource,
  what: string,
  load: (server: ResourceServer) => Promise<MetadataDocument> | MetadataDocument,
  options: { missing?: (server: ResourceServer) => string | undefined } = {},
): MetadataRoute {
  const policy = () => originPolicyOf((source.env ?? loadEnv)());
  return {
    async GET(request) {
      const server = source.server();
      const notice = signInUnavailable(server.settings);
      if (notice) return metadataUnavailable(request, policy(), notice);
      let document: MetadataDocument;
      try {
        document = await load(server);
      } catch (thrown) {
        // The keys' store failed (a database that is down): the operator reads why, the client a 502.
        logUnexpected(`GET ${new URL(request.url).pathname}`, thrown);
        return metadataResponse(request, policy(), undefined, what);
      }
      const missing = document ? undefined : options.missing?.(server);
      if (missing) return metadataNotFound(request, policy(), missing);
      return metadataResponse(request, policy(), document, what);
    },
    OPTIONS: (request) => metadataPreflight(request, policy()),
  };
}

/**
 * A resource's protected resource metadata (RFC 9728), for the route at its path-inserted
 * well-known URL (§3.1: app/.well-known/oauth-protected-resource/<its path>/route.ts), the URL its
 * 401 challenges name in `resource_metadata` (settings.resourceMetadataUrl).
 */
export function protectedResourceMetadataRoute(source: MetadataSource): MetadataRoute {
  return metadataRoute(source, "protected resource metadata", (server) => server.protectedResourceMetadata());
}
