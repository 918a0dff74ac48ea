import { SERVER_CAPABILITIES } from "../mcp/protocol/server-info";
import { ALL_SUPPORTED_VERSIONS } from "../mcp/protocol/protocol-versions";
import { registryLists } from "./catalog";
import { worldcrafterServer } from "./server-definition";

/**
 * The MCP Server Card (SEP-2127) at /.well-known/mcp/server-card: what a client or registry can
 * know before connecting — where the endpoint is, which protocol revisions it speaks, that it
 * signs in with OAuth, its capabilities, and its static tools, resources and prompts exactly as
 * the list methods send them (compiled from the same registry).
 */

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/** The card's reverse-DNS name: the deployment's host turned around, then the server's name. */
function cardName(host: string, server: string): string {
  const labels = host.split(".").filter(Boolean).reverse();
  return `${labels.join(".") || "localhost"}/${server}`;
}

export interface ServerCardOptions {
  /** The canonical URL of /api/mcp for this request (resourceUrlForRequest). */
  resourceUrl: string;
  /** Whether every request needs a token (MCP_AUTH_MODE=required). */
  authRequired: boolean;
  disabledTools: readonly string[];
}

export function serverCard({ resourceUrl, authRequired, disabledTools }: ServerCardOptions): Record<string, unknown> {
  const { info } = worldcrafterServer;
  const url = new URL(resourceUrl);
  const lists = registryLists(worldcrafterServer, { disabledTools });
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(url.hostname, info.name),
    version: info.version,
    title: info.title,
    description: info.description,
    websiteUrl: `${url.origin}/`,
    remotes: [
      {
        type: "streamable-http",
        url: resourceUrl,
        supportedProtocolVersions: [...ALL_SUPPORTED_VERSIONS],
        authentication: { required: authRequired, schemes: ["oauth2"] },
      },
    ],
    capabilities: SERVER_CAPABILITIES,
    resources: lists.resources,
    tools: lists.tools,
    prompts: lists.prompts,
  };
}
