import { loadEnv } from "../config/env";
import { metadataNotFound, metadataPreflight, metadataResponse } from "../http/metadata-response";
import { originPolicyOf } from "../http/origin-guard";
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

function metadataRoute(what: string, load: (server: ResourceServer) => Promise<Record<string, unknown> | undefined> | Record<string, unknown>, missing?: string): MetadataRoute {
  const policy = () => originPolicyOf(loadEnv());
  return {
    async GET(request) {
      const document = await load(worldcrafterResourceServer());
      if (!document && missing) return metadataNotFound(request, policy(), missing);
      return metadataResponse(request, policy(), document, what);
    },
    OPTIONS: (request) => metadataPreflight(request, policy()),
  };
}

export const protectedResourceRoute = metadataRoute("protected resource metadata", (server) => server.protectedResourceMetadata());
export const authorizationServerRoute = metadataRoute("authorization server metadata", (server) => server.authorizationServerMetadata("oauth"));
export const openidConfigurationRoute = metadataRoute("OpenID configuration", (server) => server.authorizationServerMetadata("openid"));
export const jwksRoute = metadataRoute("JWKS", (server) => server.jwks(), "this server does not issue tokens; see the authorization server's jwks_uri");
