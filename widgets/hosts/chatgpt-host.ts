import type { DisplayMode, Json, Theme } from "../bridge/host";
import type { OpenAiGlobals } from "../bridge/openai-host";
import { DEFAULT_MAX_HEIGHT, fitHeight, newFrame, showDisplayMode, type EmulatedHost, type EmulatedHostOptions, type HostEvent } from "./host-options";

/**
 * Plays ChatGPT for one widget: `window.openai` is in the frame before the widget's own script
 * runs (an injected first script, as ChatGPT's sandbox does), carrying toolInput, toolOutput
 * (structuredContent), toolResponseMetadata (_meta), the widget state, theme, display mode,
 * locale, maxHeight, safe area and the user's timezone; every change is announced with an
 * `openai:set_globals` event. The host keeps the widget state, so a reload renders the widget with
 * what it saved. requestModal opens the same widget in a second frame over the page (view.mode
 * "modal"); requestClose closes the modal, or the widget; uploadFile keeps the file and
 * getFileDownloadUrl answers where the server can fetch it.
 */

declare global {
  interface Window {
    __worldcrafterChatGpt?: Record<string, (frameWindow: Window) => OpenAiGlobals>;
  }
}

let counter = 0;

export function mountChatGptHost(container: HTMLElement, options: EmulatedHostOptions): EmulatedHost {
  const id = `host-${++counter}`;
  let theme: Theme = options.theme ?? "light";
  let locale = options.locale ?? "en-US";
  let widgetState: Json | null = null;
  let displayMode: DisplayMode = "inline";
  let call = { toolInput: options.toolInput, toolResult: options.toolResult };
  const maxHeight = options.maxHeight ?? DEFAULT_MAX_HEIGHT;
  let frame = newFrame(container, `${options.toolName} (ChatGPT)`, options.sandbox);
  const refuse = (what: "message" | "displayMode" | "openLink", api: string) => {
    if (options.refuse?.includes(what)) throw new Error(`The host refused ${api}`);
  };
  /** The frames showing this widget (inline, and a modal when open), each with its window.openai. */
  const live = new Map<HTMLIFrameElement, { win: Window; openai: OpenAiGlobals }>();
  const uploads = new Map<string, string>();
  const events: HostEvent[] = [];
  const event = (name: string, detail: unknown) => {
    events.push({ name, detail });
    options.onEvent?.(name, detail);
  };

  const announce = (globals: Partial<OpenAiGlobals>) => {
    for (const { win, openai } of live.values()) {
      Object.assign(openai, globals);
      win.dispatchEvent(new (win as unknown as typeof globalThis).CustomEvent("openai:set_globals", { detail: { globals } }));
    }
  };

  let modal: HTMLElement | undefined;
  const closeModal = () => {
    const modalFrame = modal?.querySelector("iframe");
    if (modalFrame) live.delete(modalFrame);
    modal?.remove();
    modal = undefined;
  };

  const globalsFor = (win: Window, target: HTMLIFrameElement, view: OpenAiGlobals["view"]): OpenAiGlobals => ({
    toolInput: call.toolInput,
    toolOutput: call.toolResult.structuredContent ?? null,
    toolResponseMetadata: call.toolResult._meta ?? null,
    widgetState,
    theme,
    displayMode,
    locale,
    maxHeight,
    view,
    safeArea: { insets: { ...(options.safeArea ?? { top: 0, right: 0, bottom: 0, left: 0 }) } },
    userLocation: options.timeZone ? { timezone: options.timeZone } : null,
    callTool: async (name, args) => {
      event("callTool", { name, args });
      return options.callTool(name, args);
    },
    setWidgetState: async (state) => {
      // Kept by the host (ChatGPT stores it with the message), handed back on the next render.
      widgetState = JSON.parse(JSON.stringify(state)) as Json;
      announce({ widgetState });
    },
    sendFollowUpMessage: async ({ prompt }) => {
      event("followUp", prompt);
      refuse("message", "sendFollowUpMessage");
    },
    requestDisplayMode: async ({ mode }) => {
      event("requestDisplayMode", mode);
      refuse("displayMode", "requestDisplayMode");
      displayMode = mode;
      showDisplayMode(frame, mode);
      announce({ displayMode });
      return { mode };
    },
    notifyIntrinsicHeight: (height) => fitHeight(target, height, maxHeight),
    openExternal: async ({ href }) => {
      event("openExternal", href);
      refuse("openLink", "openExternal");
    },
    requestClose: () => {
      if (target !== frame) {
        event("closeModal", null);
        closeModal();
        return;
      }
      event("requestClose", null);
      closeModal();
      live.delete(frame);
      frame.remove();
    },
    requestModal: async ({ title, params }) => {
      event("requestModal", { title, params });
      closeModal();
      modal = document.createElement("div");
      modal.setAttribute("role", "dialog");
      modal.setAttribute("aria-label", title ?? "");
      modal.dataset.testid = "host-modal";
      modal.style.cssText = "position:fixed;inset:0;background:#0007;display:flex;align-items:center;justify-content:center;z-index:200";
      const box = document.createElement("div");
      box.style.cssText = "background:Canvas;border-radius:12px;width:min(520px,94vw);max-height:90vh;overflow:hidden";
      modal.append(box);
      document.body.append(modal);
      const modalFrame = newFrame(box, `${title ?? ""} (ChatGPT modal)`, options.sandbox);
      modalFrame.style.height = "520px";
      await render(modalFrame, { mode: "modal", params: params ?? {} });
    },
    uploadFile: async (file) => {
      const text = await file.text();
      const stored = options.uploadFile ? await options.uploadFile({ name: file.name, type: file.type, text }) : { fileId: `file_${uploads.size + 1}`, downloadUrl: URL.createObjectURL(file) };
      uploads.set(stored.fileId, stored.downloadUrl);
      event("uploadFile", { name: file.name, fileId: stored.fileId });
      return { fileId: stored.fileId };
    },
    getFileDownloadUrl: async ({ fileId }) => {
      const downloadUrl = uploads.get(fileId);
      if (!downloadUrl) throw new Error(`No uploaded file ${fileId}`);
      return { downloadUrl };
    },
  });

  const render = (target: HTMLIFrameElement, view: OpenAiGlobals["view"]) =>
    new Promise<void>((resolve) => {
      const key = `${id}-${target === frame ? "inline" : "modal"}`;
      window.__worldcrafterChatGpt ??= {};
      window.__worldcrafterChatGpt[key] = (win) => {
        const openai = globalsFor(win, target, view);
        live.set(target, { win, openai });
        return openai;
      };
      target.addEventListener("load", () => resolve(), { once: true });
      const inject = `<script>window.openai=parent.__worldcrafterChatGpt[${JSON.stringify(key)}](window);</script>`;
      target.srcdoc = options.html.replace(/<head>/i, `<head>${inject}`);
    });
  void render(frame, { mode: "inline" });

  return {
    get frame() {
      return frame;
    },
    events,
    async reload() {
      const next = newFrame(container, frame.title, options.sandbox);
      live.delete(frame);
      frame.replaceWith(next);
      frame = next;
      showDisplayMode(frame, displayMode);
      await render(frame, { mode: "inline" });
    },
    setTheme(next) {
      theme = next;
      announce({ theme });
    },
    setLocale(next) {
      locale = next;
      announce({ locale });
    },
    // ChatGPT has no streamed input, cancel or teardown events (seed 003 §events).
    deliverResult: async () => undefined,
    async showResult(toolInput, toolResult) {
      call = { toolInput, toolResult };
      announce({ toolInput, toolOutput: toolResult.structuredContent ?? null, toolResponseMetadata: toolResult._meta ?? null });
    },
    cancel: async () => undefined,
    teardown: async () => undefined,
    async close() {
      closeModal();
      frame.remove();
      for (const key of Object.keys(window.__worldcrafterChatGpt ?? {})) if (key.startsWith(`${id}-`)) delete window.__worldcrafterChatGpt?.[key];
    },
  };
}
