import { memoisedDocuments } from "../http/discovery-response";
import { hostNamePart, SERVER_CARD_MEDIA_TYPE, serverCardUrl } from "./server-card";
import { worldcrafterServer } from "./server-definition";

/**
 * The site's AI Catalog at /.well-known/ai-catalog.json (the Server Card extension's
 * docs/discovery.md §AI Catalog): the domain-level entry point a client fetches to find the MCP
 * servers of a site. One entry: WorldCrafter's server card, by URL, with a domain-anchored
 * identifier `urn:air:{publisher}:mcp:{name}` (§server card entries). The card itself carries
 * title, description and version, so the entry does not repeat them.
 */

export const AI_CATALOG_MEDIA_TYPE = "application/ai-catalog+json";

export function aiCatalog(resourceUrl: string): Record<string, unknown> {
  const host = hostNamePart(new URL(resourceUrl).hostname);
  return {
    specVersion: "1.0",
    entries: [{ identifier: `urn:air:${host}:mcp:${worldcrafterServer.info.name}`, type: SERVER_CARD_MEDIA_TYPE, url: serverCardUrl(resourceUrl) }],
  };
}

export const aiCatalogDocument = memoisedDocuments(aiCatalog);
