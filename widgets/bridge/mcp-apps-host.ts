import { App, PostMessageTransport, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { Listeners, isJson, systemTheme, toolResultOf, type DisplayMode, type HostContext, type Json, type ToolResult, type WidgetHost } from "./host";

/**
 * An MCP Apps host (SEP-1865: Claude and others; ChatGPT too) through the official ext-apps App
 * client over postMessage. MCP Apps keeps no widget state, so the bridge does (seed 003 §state
 * management): in the frame's localStorage when the sandbox allows it, else in memory, under a
 * key of this widget and the tool call it renders, so a re-rendered frame finds it again.
 */

const DISPLAY_MODES: readonly DisplayMode[] = ["inline", "fullscreen", "pip"];

/** localStorage, or nothing when the sandbox (an opaque origin) forbids it. */
function storage(): Storage | undefined {
  try {
    const probe = "worldcrafter:probe";
    window.localStorage.setItem(probe, "1");
    window.localStorage.removeItem(probe);
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export async function mcpAppsHost(widget: string, version: string): Promise<WidgetHost> {
  const listeners = new Listeners();
  const app = new App({ name: `worldcrafter-${widget}`, version }, {}, { autoResize: true });
  let input: Json | undefined;
  let result: ToolResult | undefined;
  let context: McpUiHostContext = {};
  const store = storage();
  const memory = new Map<string, Json>();

  const applyContext = (next: McpUiHostContext) => {
    context = { ...context, ...next };
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  };
  /** The tool call this frame renders: its request id when the host says, else its arguments. */
  const stateKey = () => `worldcrafter:widget-state:${widget}:${String(context.toolInfo?.id ?? JSON.stringify(input ?? {}))}`;

  // Handlers before connect: the host may send input and result right after initialization.
  app.ontoolinput = (params) => {
    input = isJson(params.arguments) ? params.arguments : {};
    listeners.emit();
  };
  app.ontoolresult = (params) => {
    result = toolResultOf(params);
    listeners.emit();
  };
  app.onhostcontextchanged = (params) => {
    applyContext(params);
    listeners.emit();
  };
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  applyContext(app.getHostContext() ?? {});

  return {
    kind: "mcp-apps",
    toolInput: () => input,
    toolResult: () => result,
    context: (): HostContext => {
      const dimensions = context.containerDimensions;
      const maxHeight = dimensions && "maxHeight" in dimensions ? dimensions.maxHeight : undefined;
      return {
        theme: context.theme ?? systemTheme(),
        displayMode: DISPLAY_MODES.find((m) => m === context.displayMode) ?? "inline",
        locale: context.locale ?? navigator.language,
        ...(typeof maxHeight === "number" ? { maxHeight } : {}),
      };
    },
    widgetState: <S extends Json>() => {
      const key = stateKey();
      const saved = store?.getItem(key);
      if (saved) {
        try {
          const parsed: unknown = JSON.parse(saved);
          if (isJson(parsed)) return parsed as S;
        } catch {
          // a corrupt entry is no state
        }
      }
      return memory.get(key) as S | undefined;
    },
    setWidgetState(state) {
      const key = stateKey();
      memory.set(key, state);
      try {
        store?.setItem(key, JSON.stringify(state));
      } catch {
        // full or forbidden: the memory copy serves this frame's lifetime
      }
      // As ChatGPT announces a new widgetState (openai:set_globals), so does the bridge.
      listeners.emit();
    },
    callTool: async (name, args) => toolResultOf(await app.callServerTool({ name, arguments: args })),
    sendFollowUp: async (prompt) => {
      await app.sendMessage({ role: "user", content: [{ type: "text", text: prompt }] });
    },
    requestDisplayMode: async (mode) => {
      await app.requestDisplayMode({ mode });
    },
    // autoResize reports size changes itself.
    notifyHeight: () => undefined,
    openExternal: async (url) => {
      await app.openLink({ url });
    },
    onChange: (listener) => listeners.add(listener),
  };
}
