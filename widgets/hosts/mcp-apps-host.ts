import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { McpUiHostContext, McpUiStyles } from "@modelcontextprotocol/ext-apps";
import type { Theme, ToolResult } from "../bridge/host";
import { newFrame, type EmulatedHost, type EmulatedHostOptions } from "./host-options";

/**
 * Plays an MCP Apps host (SEP-1865) for one widget with ext-apps' own host side, AppBridge:
 * it answers the widget's ui/initialize with a host context (theme, locale, display mode,
 * style variables), sends the tool input and result once the widget is initialized, and
 * proxies the widget's tools/call to `callTool`.
 */

// A few of the standard variables, as a host sets them; the widget falls back for the rest.
const STYLE_VARIABLES: Record<Theme, Partial<McpUiStyles>> = {
  light: { "--color-background-primary": "#ffffff", "--color-text-primary": "#1f1f1f", "--color-border-primary": "#d9d9d9" },
  dark: { "--color-background-primary": "#262624", "--color-text-primary": "#f5f4ef", "--color-border-primary": "#4a4a46" },
};

/** A widget-side ToolResult as the CallToolResult AppBridge sends (content is required there). */
function callToolResult(result: ToolResult) {
  return {
    content: (result.content ?? []) as never,
    ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    ...(result._meta ? { _meta: result._meta } : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}

export async function mountMcpAppsHost(container: HTMLElement, options: EmulatedHostOptions): Promise<EmulatedHost> {
  let theme: Theme = options.theme ?? "light";
  let frame = newFrame(container, `${options.toolName} (MCP Apps)`);
  let bridge: AppBridge | undefined;
  const event = (name: string, detail: unknown) => options.onEvent?.(name, detail);
  const context = (): McpUiHostContext => ({
    theme,
    locale: options.locale ?? "en-US",
    displayMode: "inline" as const,
    availableDisplayModes: ["inline" as const, "fullscreen" as const],
    platform: "web" as const,
    containerDimensions: { maxHeight: 640, width: frame.clientWidth || 600 },
    styles: { variables: STYLE_VARIABLES[theme] as McpUiStyles },
    toolInfo: { id: `preview-${options.toolName}`, tool: { name: options.toolName, inputSchema: { type: "object" as const } } },
  });

  const render = async () => {
    const target = frame.contentWindow;
    if (!target) throw new Error("the widget frame has no window");
    const b = new AppBridge(null, { name: "worldcrafter-preview-host", version: "1.0.0" }, { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } }, { hostContext: context() });
    b.oncalltool = async (params) => {
      event("callTool", params);
      return callToolResult(await options.callTool(params.name, params.arguments ?? {}));
    };
    b.onmessage = async (params) => {
      event("followUp", params);
      return {};
    };
    b.onopenlink = async (params) => {
      event("openExternal", params.url);
      return {};
    };
    b.onrequestdisplaymode = async (params) => ({ mode: params.mode === "fullscreen" ? "fullscreen" : "inline" });
    b.onsizechange = ({ height }) => {
      if (typeof height === "number") frame.style.height = `${Math.min(Math.max(height, 80), 640)}px`;
    };
    b.onloggingmessage = (params) => event("log", params);
    const ready = new Promise<void>((resolve) => {
      b.oninitialized = () => {
        void b.sendToolInput({ arguments: options.toolInput });
        void b.sendToolResult(callToolResult(options.toolResult));
        resolve();
      };
    });
    // Listening before the document loads: the widget's ui/initialize comes as soon as it runs.
    await b.connect(new PostMessageTransport(target, target));
    bridge = b;
    frame.srcdoc = options.html;
    await ready;
  };
  await render();

  return {
    get frame() {
      return frame;
    },
    async reload() {
      await bridge?.close();
      const next = newFrame(container, frame.title);
      frame.replaceWith(next);
      frame = next;
      await render();
    },
    setTheme(next) {
      theme = next;
      bridge?.setHostContext(context());
    },
    async close() {
      await bridge?.close();
      frame.remove();
    },
  };
}
