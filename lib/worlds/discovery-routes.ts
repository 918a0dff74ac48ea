import { loadEnv } from "../config/env";
import { resourceUrlForRequest } from "../auth/auth-settings";
import { worldcrafterResource } from "./resource";
import { discoveryPreflight, discoveryResponse, type DiscoveryDocument } from "../http/discovery-response";
import { AI_CATALOG_MEDIA_TYPE, aiCatalogDocument } from "./ai-catalog";
import { SERVER_CARD_MEDIA_TYPE, serverCardDocument } from "./server-card";

/** The handlers of the discovery routes; the route files only name which. */
export interface DiscoveryRoute {
  GET(request: Request): Response;
  OPTIONS(request: Request): Response;
}

function discoveryRoute(document: (resourceUrl: string) => DiscoveryDocument, mediaType: string): DiscoveryRoute {
  return {
    GET(request) {
      const env = loadEnv();
      const { url, varyOn } = resourceUrlForRequest(worldcrafterResource(env), env, request.headers);
      return discoveryResponse(request, document(url), mediaType, varyOn);
    },
    OPTIONS: () => discoveryPreflight(),
  };
}

export const serverCardRoute = discoveryRoute(serverCardDocument, SERVER_CARD_MEDIA_TYPE);
export const aiCatalogRoute = discoveryRoute(aiCatalogDocument, AI_CATALOG_MEDIA_TYPE);
