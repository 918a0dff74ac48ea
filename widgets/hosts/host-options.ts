import type { Json, Theme, ToolResult } from "../bridge/host";

/** What an emulated host is given to render one widget for one tool call. */
export interface EmulatedHostOptions {
  /** The widget's HTML document, as resources/read returns it. */
  html: string;
  toolName: string;
  toolInput: Json;
  toolResult: ToolResult;
  /** Answers the widget's tool calls: a real MCP server in tests, sample data in the preview. */
  callTool(name: string, args: Json): Promise<ToolResult>;
  theme?: Theme;
  locale?: string;
  /** Everything the widget asked of the host besides tool calls (follow-ups, links, modes). */
  onEvent?(event: string, detail: unknown): void;
}

export interface EmulatedHost {
  readonly frame: HTMLIFrameElement;
  /** Renders the widget again from scratch, as a host does when the conversation is reopened. */
  reload(): Promise<void>;
  setTheme(theme: Theme): void;
  close(): Promise<void>;
}

/** Same-origin, script-running frames: the emulators reach into them as the real hosts' bridges do. */
export const FRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms";

export function newFrame(container: HTMLElement, title: string): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", FRAME_SANDBOX);
  frame.title = title;
  frame.style.cssText = "width:100%;height:320px;border:0;display:block;background:transparent";
  container.append(frame);
  return frame;
}
