import { WIDGET_MIME_TYPE, type CallToolResult, type HandlerContext, type ServerExtensions, type ToolDefinition } from "../mcp";
import { WidgetKey } from "./tools/data/shared";

/**
 * The MCP Apps extension (SEP-1865, ext-apps specification/2026-01-26 §client<>server capability
 * negotiation): the server announces `io.modelcontextprotocol/ui` with the content type of its
 * views, and reads whether the client declared it — in initialize (2025 revisions) or in each
 * request's `_meta` client capabilities (2026-07-28).
 */
export const MCP_APPS_EXTENSION = "io.modelcontextprotocol/ui";

export const SERVER_EXTENSIONS: ServerExtensions = { [MCP_APPS_EXTENSION]: { mimeTypes: [WIDGET_MIME_TYPE] } };

/**
 * Whether the caller shows widgets: an MCP Apps host that declared the extension with our
 * content type, or ChatGPT, which renders Apps SDK widgets without declaring it (seed 003:
 * "built-in") and marks every request with its `openai/*` `_meta`.
 */
export function rendersWidgets(ctx: Pick<HandlerContext, "clientExtensions" | "meta">): boolean {
  const apps = ctx.clientExtensions[MCP_APPS_EXTENSION];
  const mimeTypes = typeof apps === "object" && apps !== null ? (apps as { mimeTypes?: unknown }).mimeTypes : undefined;
  if (Array.isArray(mimeTypes) && mimeTypes.includes(WIDGET_MIME_TYPE)) return true;
  return isChatGpt(ctx);
}

/** Whether the request comes from ChatGPT: it marks every request with its `openai/*` `_meta` (seed 002). */
function isChatGpt(ctx: Pick<HandlerContext, "meta">): boolean {
  return Object.keys(ctx.meta).some((key) => key.startsWith("openai/"));
}

const WIDGET_ONLY_KEYS: readonly string[] = Object.values(WidgetKey);

/**
 * A client that shows no widgets gets the text and structuredContent only: the widget-only
 * `_meta` (full records, previews: several KB a result) is left out, as the extension's graceful
 * degradation asks (text-only fallback). ChatGPT's own result keys (`openai/closeWidget`) go to
 * ChatGPT alone: seed 003 lists no MCP Apps counterpart (an MCP Apps widget closes itself). The
 * tool descriptors stay the same for every client, so tools/list remains one cacheable page.
 */
function forHost(result: CallToolResult, ctx: HandlerContext): CallToolResult {
  if (!result._meta || isChatGpt(ctx)) return result;
  const widgets = rendersWidgets(ctx);
  const kept = Object.fromEntries(Object.entries(result._meta).filter(([key]) => !key.startsWith("openai/") && (widgets || !WIDGET_ONLY_KEYS.includes(key))));
  if (Object.keys(kept).length === Object.keys(result._meta).length) return result;
  const out: CallToolResult = { ...result, _meta: kept };
  if (Object.keys(kept).length === 0) delete out._meta;
  return out;
}

/**
 * `tool` with its results shaped for the caller's host (forHost). A synchronous handler stays
 * synchronous: the core answers such a call without a promise hop or a time-limit timer
 * (lib/mcp/methods/tools.ts), which an async wrapper would give up for every tool.
 */
export function withWidgetPayloadsForUiHosts(tool: ToolDefinition): ToolDefinition {
  const handler: ToolDefinition["handler"] = (args, ctx) => {
    const result = tool.handler(args, ctx);
    return result instanceof Promise ? result.then((settled) => forHost(settled, ctx)) : forHost(result, ctx);
  };
  return { ...tool, handler };
}
