import { isIP } from "node:net";
import { ALL_SUPPORTED_VERSIONS } from "../mcp/protocol/protocol-versions";
import { memoisedDocuments } from "../http/discovery-response";
import { worldcrafterServer } from "./server-definition";

/**
 * The MCP Server Card (SEP-2127) as the Server Card extension specifies it
 * (modelcontextprotocol/experimental-ext-server-card, schema.ts and docs/discovery.md): who the
 * server is and how to connect — identity, icons, the Streamable HTTP endpoint and the protocol
 * revisions it speaks. A card does not enumerate tools, resources or prompts: those are listed at
 * runtime (docs/discovery.md §MCP Server Cards). Its fields match what initialize and
 * server/discover say (§consistency with runtime behavior).
 */

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
export const SERVER_CARD_MEDIA_TYPE = "application/mcp-server-card+json";

/**
 * A URL's hostname as a name part: an IPv6 address loses its brackets and has dashes for colons,
 * as neither the card's name pattern nor a URN's name (RFC 8141 §2) allows either.
 */
export function hostNamePart(hostname: string): string {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return isIP(bare) === 6 ? bare.replaceAll(":", "-") : bare;
}

/**
 * The card's reverse-DNS name: the deployment's host turned around, then the server's name. An
 * address has no domain to turn around: it stays as written (hostNamePart).
 */
export function cardName(host: string, server: string): string {
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare)) return `${hostNamePart(host)}/${server}`;
  const labels = host.split(".").filter(Boolean).reverse();
  return `${labels.join(".") || "localhost"}/${server}`;
}

/** The reserved location of a server's card: `<streamable-http-url>/server-card` (docs/discovery.md §hosted server card location). */
export function serverCardUrl(resourceUrl: string): string {
  return `${resourceUrl.replace(/\/+$/, "")}/server-card`;
}

export function serverCard(resourceUrl: string): Record<string, unknown> {
  const { info } = worldcrafterServer;
  const url = new URL(resourceUrl);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(url.hostname, info.name),
    version: info.version,
    title: info.title,
    description: info.description,
    websiteUrl: `${url.origin}/`,
    ...(info.icons ? { icons: info.icons } : {}),
    remotes: [{ type: "streamable-http", url: resourceUrl, supportedProtocolVersions: [...ALL_SUPPORTED_VERSIONS] }],
  };
}

/** Built once per public URL (serverCard reads nothing else). */
export const serverCardDocument = memoisedDocuments(serverCard);
