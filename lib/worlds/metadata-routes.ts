import { loadEnv } from "../config/env";
import { signInUnavailable } from "../auth/auth-settings";
import { metadataNotFound, metadataPreflight, metadataResponse, metadataUnavailable } from "../http/metadata-response";
import { originPolicyOf } from "../http/origin-guard";
import { logUnexpected } from "../mcp/runtime/request-log";
import type { ResourceServer } from "../auth/resource-server";
import { worldcrafterResourceServer } from "./authorization";

/**
 * The handlers of the /.well-known routes: each serves one document of the resource server, with
 * the deployment's CORS policy. The route files only name which.
 */
export interface MetadataRoute {
  GET(request: Request): Promise<Response>;
  OPTIONS(request: Request): Response;
}

type Document = Record<string, unknown> | undefined;

/**
 * While the built-in server cannot run (no secret, no database on Vercel, no resource URL in
 * production) every document answers 503 naming what to set, never cached: the authorization
 * server's would be a 500 from keys that cannot be read, and the resource's own would name a
 * resource and an issuer on http://localhost:$PORT, publicly cacheable, sending a client that
 * skips RFC 9728 §3.3's check to its own machine (outside audit, 2026-11-27). A document that
 * cannot be had for any other reason is a 502.
 */
function metadataRoute(what: string, load: (server: ResourceServer) => Promise<Document> | Document, options: { missing?: (server: ResourceServer) => string | undefined } = {}): MetadataRoute {
  const policy = () => originPolicyOf(loadEnv());
  return {
    async GET(request) {
      const server = worldcrafterResourceServer();
      const notice = signInUnavailable(server.settings);
      if (notice) return metadataUnavailable(request, policy(), notice);
      let document: Document;
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

export const protectedResourceRoute = metadataRoute("protected resource metadata", (server) => server.protectedResourceMetadata());
export const authorizationServerRoute = metadataRoute("authorization server metadata", (server) => server.authorizationServerMetadata("oauth"));
/**
 * An external issuer's OpenID configuration is mirrored; the built-in server is an OAuth 2.1
 * authorization server, not an OpenID provider (no `openid` scope, no ID tokens), and a document
 * here would claim otherwise (OIDC Discovery §3 requires fields it cannot truthfully fill): 404,
 * and MCP clients go on with /.well-known/oauth-authorization-server, which they try first.
 */
export const openidConfigurationRoute = metadataRoute("OpenID configuration", (server) => server.authorizationServerMetadata("openid"), {
  missing: (server) => (server.settings.issuer.kind === "builtin" ? "this server is an OAuth 2.1 authorization server, not an OpenID provider: see /.well-known/oauth-authorization-server" : undefined),
});
export const jwksRoute = metadataRoute("JWKS", (server) => server.jwks(), { missing: () => "this server does not issue tokens; see the authorization server's jwks_uri" });
