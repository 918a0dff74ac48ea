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

/** The display modes the widgets know; a host's others are left out. */
export const DISPLAY_MODES: readonly DisplayMode[] = ["inline", "fullscreen", "pip"];

export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface HostContext {
  theme: Theme;
  displayMode: DisplayMode;
  /** The modes this host can show the widget in (ChatGPT: all three). */
  availableDisplayModes: readonly DisplayMode[];
  /** BCP 47. */
  locale: string;
  /** IANA zone of the user, when the host says (ChatGPT userLocation, MCP Apps timeZone). */
  timeZone?: string;
  maxHeight?: number;
  /** Areas the host's own chrome covers (notches, toolbars): content keeps clear of them. */
  safeArea: Insets;
}

/** Where this frame is: the inline card, or a modal the widget asked the host for (ChatGPT). */
export interface WidgetView {
  mode: "inline" | "modal";
  params?: Json;
}

/** The tool call's progress as the host reports it (MCP Apps: tool-input-partial, tool-cancelled). */
export type CallPhase = { phase: "ready" } | { phase: "preparing"; partial: Json } | { phase: "cancelled"; reason: string };

/** A file the user chose, handed to the server: by the host's upload (ChatGPT) or inline. */
export type FileArgument = { file: { download_url: string; file_id: string } } | { document: string; format: "markdown" | "json" };

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
  /** Asks the host to close this widget (its purpose is over, e.g. its world was deleted). */
  requestClose(): Promise<void>;
  /** Opens this widget again in a host modal with `params` (only where `canModal`). */
  requestModal(title: string, params: Json): Promise<void>;
  readonly canModal: boolean;
  view(): WidgetView;
  /** A chosen file as a tool argument: uploaded through the host where it can, else read here. */
  fileArgument(file: File): Promise<FileArgument>;
  phase(): CallPhase;
  /** Run before the host tears the widget down (MCP Apps ui/resource-teardown): save what matters. */
  onTeardown(save: () => void): void;
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

export const NO_INSETS: Insets = { top: 0, right: 0, bottom: 0, left: 0 };

/** Insets from whatever object a host handed over (missing or bad sides are 0). */
export function insetsOf(value: unknown): Insets {
  if (!isJson(value)) return NO_INSETS;
  const side = (k: keyof Insets) => (typeof value[k] === "number" && Number.isFinite(value[k]) ? Math.max(0, value[k] as number) : 0);
  return { top: side("top"), right: side("right"), bottom: side("bottom"), left: side("left") };
}

/**
 * What import_world takes (1 MiB): its file and document limit (IMPORT_MAX_BYTES_DEFAULT) and the
 * request body limit (MCP_MAX_BODY_BYTES' default), both in lib/config/env.ts, which the widgets
 * cannot bundle; a unit test keeps them equal. Bigger files are refused here, before any upload,
 * with the widget's own message rather than the server's.
 */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** Room in the body for the JSON-RPC envelope around an inline document (method, name, format, _meta). */
const ENVELOPE_BYTES = 4 * 1024;

/** The file read in the frame and passed inline (hosts without an upload API). */
export async function inlineFileArgument(file: File): Promise<FileArgument> {
  if (file.size > MAX_IMPORT_BYTES) throw new FileTooLargeError(file.size);
  const document = await file.text();
  // Inline, the text travels JSON-escaped inside the request body, which has the same limit.
  const encoded = new TextEncoder().encode(JSON.stringify(document)).length;
  if (encoded + ENVELOPE_BYTES > MAX_IMPORT_BYTES) throw new FileTooLargeError(encoded);
  const format = /\.json$/i.test(file.name) || file.type === "application/json" ? "json" : "markdown";
  return { document, format };
}

export class FileTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`file too large: ${bytes} bytes`);
  }
}

/** The light/dark preference of the page, for hosts that do not say. */
export function systemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
