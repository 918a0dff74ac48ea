/**
 * What a widget needs from the page that hosts it, whichever host that is: ChatGPT
 * (`window.openai`, openai-host.ts) or an MCP Apps host (the ext-apps App client over
 * postMessage, mcp-apps-host.ts). Widgets are written against this and nothing else; what one
 * host lacks is filled in here (seed 003 §feature support matrix).
 */

export type Json = Record<string, unknown>;

/** A tools/call result as a widget sees it. */
export interface ToolResult {
  content?: unknown[];
  structuredContent?: Json;
  /** Widget-only data the model never reads (seed 002 §three response payloads). */
  _meta?: Json;
  isError?: boolean;
}

export type Theme = "light" | "dark";
export type DisplayMode = "inline" | "fullscreen" | "pip";

export interface HostContext {
  theme: Theme;
  displayMode: DisplayMode;
  /** BCP 47. */
  locale: string;
  maxHeight?: number;
}

export interface WidgetHost {
  readonly kind: "chatgpt" | "mcp-apps" | "none";
  /** The arguments of the tool call this widget renders. */
  toolInput(): Json | undefined;
  /** That call's result, once there is one. */
  toolResult(): ToolResult | undefined;
  context(): HostContext;
  /** What this widget instance saved last (ChatGPT keeps it; elsewhere the bridge does). */
  widgetState<S extends Json>(): S | undefined;
  setWidgetState(state: Json): void;
  /** Calls a tool of this widget's server through the host (the tool must be app-visible). */
  callTool(name: string, args: Json): Promise<ToolResult>;
  /** Posts a message in the conversation as the user. */
  sendFollowUp(prompt: string): Promise<void>;
  requestDisplayMode(mode: DisplayMode): Promise<void>;
  /** The content's height, for hosts that size the frame to it. */
  notifyHeight(height: number): void;
  openExternal(url: string): Promise<void>;
  /** Called when input, result, context or state change; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
}

export function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields of a tools/call result a widget reads, from whatever object a host handed over. */
export function toolResultOf(value: unknown): ToolResult {
  if (!isJson(value)) return {};
  return {
    ...(Array.isArray(value.content) ? { content: value.content } : {}),
    ...(isJson(value.structuredContent) ? { structuredContent: value.structuredContent } : {}),
    ...(isJson(value._meta) ? { _meta: value._meta } : {}),
    ...(value.isError === true ? { isError: true } : {}),
  };
}

/** A minimal listener set, shared by the adapters. */
export class Listeners {
  private readonly set = new Set<() => void>();
  add(listener: () => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }
  emit(): void {
    for (const listener of this.set) listener();
  }
}

/** The light/dark preference of the page, for hosts that do not say. */
export function systemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
