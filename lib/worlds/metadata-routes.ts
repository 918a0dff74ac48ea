import { metadataRoute, protectedResourceMetadataRoute } from "../auth/metadata-routes";
import { worldcrafterResourceServer } from "./authorization";

/** WorldCrafter's /.well-known documents (lib/auth/metadata-routes.ts answers them); the route files only name which. */
const worldcrafter = { server: worldcrafterResourceServer };

export const protectedResourceRoute = protectedResourceMetadataRoute(worldcrafter);
export const authorizationServerRoute = metadataRoute(worldcrafter, "authorization server metadata", (server) => server.authorizationServerMetadata("oauth"));
/**
 * An external issuer's OpenID configuration is mirrored; the built-in server is an OAuth 2.1
 * authorization server, not an OpenID provider (no `openid` scope, no ID tokens), and a document
 * here would claim otherwise (OIDC Discovery §3 requires fields it cannot truthfully fill): 404,
 * and MCP clients go on with /.well-known/oauth-authorization-server, which they try first.
 */
export const openidConfigurationRoute = metadataRoute(worldcrafter, "OpenID configuration", (server) => server.authorizationServerMetadata("openid"), {
  missing: (server) => (server.settings.issuer.kind === "builtin" ? "this server is an OAuth 2.1 authorization server, not an OpenID provider: see /.well-known/oauth-authorization-server" : undefined),
});
export const jwksRoute = metadataRoute(worldcrafter, "JWKS", (server) => server.jwks(), { missing: () => "this server does not issue tokens; see the authorization server's jwks_uri" });
