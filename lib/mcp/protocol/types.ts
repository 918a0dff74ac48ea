/**
 * Wire shapes of MCP results the server produces (schema.ts of the 2025-11-25 revision, the subset
 * this server emits). Client-supplied shapes are validated with zod where they enter.
 */
export type Meta = Record<string, unknown>;

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent { type: "text"; text: string; annotations?: Annotations; _meta?: Meta }
export interface ImageContent { type: "image"; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
export interface AudioContent { type: "audio"; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Meta }
  | { uri: string; mimeType?: string; blob: string; _meta?: Meta };

export interface EmbeddedResource { type: "resource"; resource: ResourceContents; annotations?: Annotations; _meta?: Meta }

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

/** RFC 5424 severities as MCP server/utilities/logging orders them. */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export function loggingLevelRank(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}
