import type { DisplayMode, Insets, Json, Theme, ToolResult } from "../bridge/host";

/** What an emulated host is given to render one widget for one tool call. */
export interface EmulatedHostOptions {
  /** The widget's HTML document, as resources/read returns it. */
  html: string;
  toolName: string;
  toolInput: Json;
  toolResult: ToolResult;
  /** Answers the widget's tool calls: a real MCP server in tests, sample data in the preview. */
  callTool(name: string, args: Json): Promise<ToolResult>;
  /**
   * Stores a file the widget uploads (ChatGPT's uploadFile) and answers the URL the server will
   * download it from. Without it the emulator keeps the file as a blob: URL of this page.
   */
  uploadFile?(file: { name: string; type: string; text: string }): Promise<{ fileId: string; downloadUrl: string }>;
  theme?: Theme;
  locale?: string;
  /** The user's IANA timezone (ChatGPT userLocation.timezone, MCP Apps timeZone). */
  timeZone?: string;
  safeArea?: Insets;
  maxHeight?: number;
  /** MCP Apps only: the modes the host offers (default inline and fullscreen). */
  availableDisplayModes?: DisplayMode[];
  /** MCP Apps only: font faces the host hands over (hostContext.styles.css.fonts). */
  fonts?: string;
  /** MCP Apps only: the result waits for deliverResult(); meanwhile these partial arguments stream. */
  holdResult?: { partialInput: Json };
  /**
   * The frame's sandbox (default FRAME_SANDBOX). ext-apps' example host grants "allow-scripts"
   * alone: no forms, no same-origin storage.
   */
  sandbox?: string;
  /** Requests the host refuses, as a host may: follow-ups, display modes, links. */
  refuse?: ("message" | "displayMode" | "openLink")[];
  /** Everything the widget asked of the host besides tool calls (follow-ups, links, modes, closing). */
  onEvent?(event: string, detail: unknown): void;
}

export interface HostEvent {
  name: string;
  detail: unknown;
}

export interface EmulatedHost {
  readonly frame: HTMLIFrameElement;
  /** Everything the widget asked of the host, in order (also passed to onEvent). */
  readonly events: readonly HostEvent[];
  /** Renders the widget again from scratch, as a host does when the conversation is reopened. */
  reload(): Promise<void>;
  setTheme(theme: Theme): void;
  setLocale(locale: string): void;
  /** MCP Apps: sends the held tool input and result (see holdResult). */
  deliverResult(): Promise<void>;
  /**
   * The same widget is handed another call's input and result, as hosts do (MCP Apps: another
   * ui/notifications/tool-input and tool-result; ChatGPT: new toolInput/toolOutput globals).
   */
  showResult(toolInput: Json, toolResult: ToolResult): Promise<void>;
  /** MCP Apps: the user cancelled the call (ui/notifications/tool-cancelled). */
  cancel(reason: string): Promise<void>;
  /** MCP Apps: ui/resource-teardown; answers what the widget replied. */
  teardown(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Same-origin, script-running frames: the emulators reach into them as the real hosts' bridges do.
 * No allow-forms: a host need not grant it, so the widgets must not rely on form submission.
 */
export const FRAME_SANDBOX = "allow-scripts allow-same-origin";
/** The inline frame's height limit, as hosts give maxHeight. */
export const DEFAULT_MAX_HEIGHT = 640;

export function newFrame(container: HTMLElement, title: string, sandbox = FRAME_SANDBOX): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", sandbox);
  frame.title = title;
  frame.style.cssText = "width:100%;height:320px;border:0;display:block;background:transparent";
  container.append(frame);
  return frame;
}

/** How the emulators show a display mode: fullscreen covers the page, pip floats in a corner. */
export function showDisplayMode(frame: HTMLIFrameElement, mode: DisplayMode): void {
  frame.dataset.displayMode = mode;
  if (mode === "fullscreen") frame.style.cssText = "position:fixed;inset:0;width:100vw;height:100vh;border:0;display:block;z-index:100;background:Canvas";
  else if (mode === "pip") frame.style.cssText = "position:fixed;right:16px;bottom:16px;width:min(420px,90vw);height:min(480px,70vh);border:1px solid #8886;border-radius:12px;display:block;z-index:100;background:Canvas";
  else frame.style.cssText = "width:100%;height:320px;border:0;display:block;background:transparent";
}

/** Sizes an inline frame to its content, within the host's limit. */
export function fitHeight(frame: HTMLIFrameElement, height: number, maxHeight: number): void {
  if ((frame.dataset.displayMode ?? "inline") === "inline") frame.style.height = `${Math.min(Math.max(height, 80), maxHeight)}px`;
}
