import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { McpUiDisplayMode, McpUiHostContext, McpUiStyles } from "@modelcontextprotocol/ext-apps";
import type { DisplayMode, Theme, ToolResult } from "../bridge/host";
import { DEFAULT_MAX_HEIGHT, fitHeight, newFrame, showDisplayMode, type EmulatedHost, type EmulatedHostOptions, type HostEvent } from "./host-options";

/**
 * Plays an MCP Apps host (SEP-1865) for one widget with ext-apps' own host side, AppBridge:
 * it answers the widget's ui/initialize with a host context (theme, locale, timezone, display
 * modes, safe area, container size, style variables, fonts), sends the tool input and result once
 * the widget is initialized (or, with holdResult, streams partial input first), proxies the
 * widget's tools/call to `callTool`, and grants display modes it offers. Links, closing requests
 * and teardown answers are recorded as events.
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
  let locale = options.locale ?? "en-US";
  let displayMode: DisplayMode = "inline";
  let call = { toolInput: options.toolInput, toolResult: options.toolResult };
  const available: McpUiDisplayMode[] = options.availableDisplayModes ?? ["inline", "fullscreen"];
  const maxHeight = options.maxHeight ?? DEFAULT_MAX_HEIGHT;
  let frame = newFrame(container, `${options.toolName} (MCP Apps)`, options.sandbox);
  const refuse = (what: "message" | "displayMode" | "openLink", method: string) => {
    if (options.refuse?.includes(what)) throw new Error(`The host refused ${method}`);
  };
  let bridge: AppBridge | undefined;
  const events: HostEvent[] = [];
  const event = (name: string, detail: unknown) => {
    events.push({ name, detail });
    options.onEvent?.(name, detail);
  };
  const context = (): McpUiHostContext => ({
    theme,
    locale,
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    displayMode,
    availableDisplayModes: available,
    platform: "web" as const,
    containerDimensions: { maxHeight, width: frame.clientWidth || 600 },
    ...(options.safeArea ? { safeAreaInsets: options.safeArea } : {}),
    styles: { variables: STYLE_VARIABLES[theme] as McpUiStyles, ...(options.fonts ? { css: { fonts: options.fonts } } : {}) },
    toolInfo: { id: `preview-${options.toolName}`, tool: { name: options.toolName, inputSchema: { type: "object" as const } } },
  });
  let held = options.holdResult !== undefined;

  const render = async () => {
    const target = frame.contentWindow;
    if (!target) throw new Error("the widget frame has no window");
    const b = new AppBridge(null, { name: "worldcrafter-preview-host", version: "1.0.0" }, { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } }, { hostContext: context() });
    b.oncalltool = async (params) => {
      event("callTool", { name: params.name, args: params.arguments ?? {} });
      return callToolResult(await options.callTool(params.name, params.arguments ?? {}));
    };
    b.onmessage = async (params) => {
      event("followUp", params);
      refuse("message", "ui/message");
      return {};
    };
    b.onopenlink = async (params) => {
      event("openExternal", params.url);
      refuse("openLink", "ui/open-link");
      return {};
    };
    b.onrequestdisplaymode = async (params) => {
      event("requestDisplayMode", params.mode);
      refuse("displayMode", "ui/request-display-mode");
      // The host grants what it offers, else keeps the current mode (SEP-1865 §display modes).
      if (available.includes(params.mode)) {
        displayMode = params.mode;
        showDisplayMode(frame, displayMode);
        b.setHostContext(context());
      }
      return { mode: displayMode };
    };
    b.onrequestteardown = () => {
      event("requestClose", null);
      frame.remove();
    };
    b.onsizechange = ({ height }) => {
      if (typeof height === "number") fitHeight(frame, height, maxHeight);
    };
    b.onloggingmessage = (params) => event("log", params);
    const ready = new Promise<void>((resolve) => {
      b.oninitialized = () => {
        if (held && options.holdResult) void b.sendToolInputPartial({ arguments: options.holdResult.partialInput });
        else {
          void b.sendToolInput({ arguments: call.toolInput });
          void b.sendToolResult(callToolResult(call.toolResult));
        }
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
    events,
    async reload() {
      await bridge?.close();
      const next = newFrame(container, frame.title, options.sandbox);
      frame.replaceWith(next);
      frame = next;
      showDisplayMode(frame, displayMode);
      await render();
    },
    setTheme(next) {
      theme = next;
      bridge?.setHostContext(context());
    },
    setLocale(next) {
      locale = next;
      bridge?.setHostContext(context());
    },
    async deliverResult() {
      held = false;
      await bridge?.sendToolInput({ arguments: call.toolInput });
      await bridge?.sendToolResult(callToolResult(call.toolResult));
    },
    async showResult(toolInput, toolResult) {
      call = { toolInput, toolResult };
      await bridge?.sendToolInput({ arguments: toolInput });
      await bridge?.sendToolResult(callToolResult(toolResult));
    },
    async cancel(reason) {
      await bridge?.sendToolCancelled({ reason });
    },
    async teardown() {
      const answer = await bridge?.teardownResource({});
      event("teardown", answer);
      return answer;
    },
    async close() {
      await bridge?.close();
      frame.remove();
    },
  };
}
