import { Listeners, NO_INSETS, inlineFileArgument, systemTheme, type WidgetHost } from "./host";
import { mcpAppsHost } from "./mcp-apps-host";
import { openAiHost } from "./openai-host";

/** Outside any host (the file opened on its own): nothing to show, and no call can be made. */
function noHost(): WidgetHost {
  const listeners = new Listeners();
  const unavailable = () => Promise.reject(new Error("This widget is not running inside ChatGPT or an MCP Apps host"));
  let state: Record<string, unknown> | undefined;
  return {
    kind: "none",
    toolInput: () => undefined,
    toolResult: () => undefined,
    context: () => ({ theme: systemTheme(), displayMode: "inline", availableDisplayModes: ["inline"], locale: navigator.language, safeArea: NO_INSETS }),
    phase: () => ({ phase: "ready" }),
    view: () => ({ mode: "inline" }),
    canModal: false,
    widgetState: <S extends Record<string, unknown>>() => state as S | undefined,
    setWidgetState: (next) => {
      state = next;
    },
    callTool: unavailable,
    sendFollowUp: unavailable,
    requestDisplayMode: unavailable,
    notifyHeight: () => undefined,
    openExternal: unavailable,
    requestClose: unavailable,
    requestModal: unavailable,
    fileArgument: inlineFileArgument,
    onTeardown: () => undefined,
    onChange: (listener) => listeners.add(listener),
  };
}

/**
 * The host this widget runs in: ChatGPT when it injected `window.openai` (it also speaks MCP Apps,
 * but its own API carries more: widget state, intrinsic height), an MCP Apps host when framed.
 */
export async function connectHost(widget: string, version: string): Promise<WidgetHost> {
  if (window.openai) return openAiHost(window.openai);
  if (window.parent !== window) return mcpAppsHost(widget, version);
  return noHost();
}
