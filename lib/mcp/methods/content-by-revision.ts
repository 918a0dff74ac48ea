import { hasResourceLinks } from "../protocol/protocol-versions";

/**
 * A tool result's content as the negotiated revision knows it. 2025-03-26's CallToolResult holds
 * text, image, audio and embedded resources only: a client typed to it would refuse the whole
 * result for one `resource_link` block (outside protocol audit), so each becomes a text block
 * that still carries the link, its name and its description.
 */
export function contentForRevision(result: Record<string, unknown>, version: string): Record<string, unknown> {
  if (hasResourceLinks(version)) return result;
  const content = result.content;
  if (!Array.isArray(content) || !content.some(isResourceLink)) return result;
  return { ...result, content: content.map((block: unknown) => (isResourceLink(block) ? linkAsText(block) : block)) };
}

interface ResourceLinkBlock {
  type: "resource_link";
  uri: string;
  name?: unknown;
  description?: unknown;
}

function isResourceLink(block: unknown): block is ResourceLinkBlock {
  return typeof block === "object" && block !== null && (block as { type?: unknown }).type === "resource_link" && typeof (block as { uri?: unknown }).uri === "string";
}

function linkAsText(link: ResourceLinkBlock): { type: "text"; text: string } {
  const name = typeof link.name === "string" && link.name !== "" ? `${link.name}: ` : "";
  const about = typeof link.description === "string" && link.description !== "" ? ` (${link.description})` : "";
  return { type: "text", text: `${name}${link.uri}${about}` };
}
