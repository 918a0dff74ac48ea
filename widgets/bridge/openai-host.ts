import { DISPLAY_MODES, Listeners, MAX_IMPORT_BYTES, FileTooLargeError, inlineFileArgument, insetsOf, isJson, systemTheme, toolResultOf, type DisplayMode, type HostContext, type Json, type ToolResult, type WidgetHost } from "./host";

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
  /** Insets of the host's chrome (Apps SDK: `{ insets: { top, bottom, left, right } }`). */
  safeArea?: { insets?: Json } | null;
  /** Coarse user location; only its timezone is used (for dates). */
  userLocation?: { timezone?: string } | null;
  /** Where this frame is: inline, or a modal opened with requestModal (and its params). */
  view?: { mode?: string; params?: Json | null } | null;
  callTool(name: string, args: Json): Promise<unknown>;
  setWidgetState(state: Json): Promise<void> | void;
  sendFollowUpMessage(args: { prompt: string }): Promise<void>;
  requestDisplayMode(args: { mode: DisplayMode }): Promise<unknown>;
  notifyIntrinsicHeight?(height: number): void;
  openExternal(args: { href: string }): void | Promise<void>;
  /** Closes the widget (seed 003 §actions); older hosts only honour `openai/closeWidget`. */
  requestClose?(): void | Promise<void>;
  requestModal?(args: { title?: string; params?: Json }): Promise<unknown> | void;
  uploadFile?(file: File): Promise<{ fileId: string }>;
  getFileDownloadUrl?(args: { fileId: string }): Promise<{ downloadUrl: string }>;
}

declare global {
  interface Window {
    openai?: OpenAiGlobals;
  }
}

/** ChatGPT fires this on window whenever a global (toolOutput, theme, widgetState…) changes. */
export const SET_GLOBALS_EVENT = "openai:set_globals";

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
      // ChatGPT hands over neither content nor isError: a failed call shows as the server's
      // structuredContent.error ({ code, message }), and is a failure here as in MCP Apps. An
      // error without a string message is a failure still, shown with the widget's own words
      // (failure.ts), never as an empty state (outside probe, 2026-11-29).
      const error = isJson(openai.toolOutput?.error) ? openai.toolOutput.error : undefined;
      const failed = error ? { isError: true, ...(typeof error.message === "string" && error.message ? { content: [{ type: "text", text: error.message }] } : {}) } : {};
      return { ...(openai.toolOutput ? { structuredContent: openai.toolOutput } : {}), ...(openai.toolResponseMetadata ? { _meta: openai.toolResponseMetadata } : {}), ...failed };
    },
    context: (): HostContext => {
      const timeZone = openai.userLocation?.timezone;
      return {
        theme: openai.theme === "dark" || openai.theme === "light" ? openai.theme : systemTheme(),
        displayMode: DISPLAY_MODES.find((m) => m === openai.displayMode) ?? "inline",
        availableDisplayModes: DISPLAY_MODES,
        locale: openai.locale ?? navigator.language,
        ...(typeof timeZone === "string" && timeZone ? { timeZone } : {}),
        ...(typeof openai.maxHeight === "number" ? { maxHeight: openai.maxHeight } : {}),
        safeArea: insetsOf(openai.safeArea?.insets),
      };
    },
    // ChatGPT renders the result itself; it has no partial-input or cancel events.
    phase: () => ({ phase: "ready" }),
    canModal: typeof openai.requestModal === "function",
    view: () => (openai.view?.mode === "modal" ? { mode: "modal", ...(isJson(openai.view.params) ? { params: openai.view.params } : {}) } : { mode: "inline" }),
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
    requestClose: async () => {
      await openai.requestClose?.();
    },
    requestModal: async (title, params) => {
      if (!openai.requestModal) throw new Error("This host has no modal");
      await openai.requestModal({ title, params });
    },
    // ChatGPT's file flow (seed 002 §file parameters): upload, then a URL the server can fetch.
    fileArgument: async (file) => {
      if (file.size > MAX_IMPORT_BYTES) throw new FileTooLargeError(file.size);
      if (!openai.uploadFile || !openai.getFileDownloadUrl) return inlineFileArgument(file);
      const { fileId } = await openai.uploadFile(file);
      const { downloadUrl } = await openai.getFileDownloadUrl({ fileId });
      return { file: { download_url: downloadUrl, file_id: fileId } };
    },
    // ChatGPT keeps the widget state itself: nothing to save at teardown.
    onTeardown: () => undefined,
    onChange: (listener) => listeners.add(listener),
  };
}
