import { Listeners, isJson, systemTheme, toolResultOf, type DisplayMode, type HostContext, type Json, type ToolResult, type WidgetHost } from "./host";

/** The part of ChatGPT's `window.openai` (Apps SDK) the bridge uses. */
export interface OpenAiGlobals {
  toolInput?: Json | null;
  toolOutput?: Json | null;
  toolResponseMetadata?: Json | null;
  widgetState?: Json | null;
  theme?: string;
  displayMode?: string;
  locale?: string;
  maxHeight?: number;
  callTool(name: string, args: Json): Promise<unknown>;
  setWidgetState(state: Json): Promise<void> | void;
  sendFollowUpMessage(args: { prompt: string }): Promise<void>;
  requestDisplayMode(args: { mode: DisplayMode }): Promise<unknown>;
  notifyIntrinsicHeight?(height: number): void;
  openExternal(args: { href: string }): void | Promise<void>;
}

declare global {
  interface Window {
    openai?: OpenAiGlobals;
  }
}

/** ChatGPT fires this on window whenever a global (toolOutput, theme, widgetState…) changes. */
export const SET_GLOBALS_EVENT = "openai:set_globals";

const DISPLAY_MODES: readonly DisplayMode[] = ["inline", "fullscreen", "pip"];

/** A callTool answer as a ToolResult, whether it came as the result itself or wrapped in `result`. */
function asToolResult(value: unknown): ToolResult {
  if (!isJson(value)) return { content: [{ type: "text", text: String(value) }] };
  return toolResultOf(isJson(value.result) && !("structuredContent" in value) ? value.result : value);
}

export function openAiHost(openai: OpenAiGlobals): WidgetHost {
  const listeners = new Listeners();
  // The state as last set, readable at once: the host's copy arrives with the next set_globals.
  let state: Json | undefined = openai.widgetState ?? undefined;
  window.addEventListener(SET_GLOBALS_EVENT, () => {
    state = openai.widgetState ?? state;
    listeners.emit();
  });
  return {
    kind: "chatgpt",
    toolInput: () => openai.toolInput ?? undefined,
    toolResult: () => {
      if (!openai.toolOutput && !openai.toolResponseMetadata) return undefined;
      return { ...(openai.toolOutput ? { structuredContent: openai.toolOutput } : {}), ...(openai.toolResponseMetadata ? { _meta: openai.toolResponseMetadata } : {}) };
    },
    context: (): HostContext => ({
      theme: openai.theme === "dark" || openai.theme === "light" ? openai.theme : systemTheme(),
      displayMode: DISPLAY_MODES.find((m) => m === openai.displayMode) ?? "inline",
      locale: openai.locale ?? navigator.language,
      ...(typeof openai.maxHeight === "number" ? { maxHeight: openai.maxHeight } : {}),
    }),
    widgetState: <S extends Json>() => state as S | undefined,
    setWidgetState(next) {
      state = next;
      void openai.setWidgetState(next);
    },
    callTool: async (name, args) => asToolResult(await openai.callTool(name, args)),
    sendFollowUp: (prompt) => openai.sendFollowUpMessage({ prompt }),
    requestDisplayMode: async (mode) => {
      await openai.requestDisplayMode({ mode });
    },
    notifyHeight: (height) => openai.notifyIntrinsicHeight?.(height),
    openExternal: async (href) => {
      await openai.openExternal({ href });
    },
    onChange: (listener) => listeners.add(listener),
  };
}
