import type { Json, Theme } from "../bridge/host";
import type { OpenAiGlobals } from "../bridge/openai-host";
import { newFrame, type EmulatedHost, type EmulatedHostOptions } from "./host-options";

/**
 * Plays ChatGPT for one widget: `window.openai` is in the frame before the widget's own script
 * runs (an injected first script, as ChatGPT's sandbox does), carrying toolInput, toolOutput
 * (structuredContent), toolResponseMetadata (_meta), the widget state, theme, display mode,
 * locale and maxHeight; every change is announced with an `openai:set_globals` event. The host
 * keeps the widget state, so a reload renders the widget with what it saved.
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
  let widgetState: Json | null = null;
  let displayMode: "inline" | "fullscreen" | "pip" = "inline";
  let frame = newFrame(container, `${options.toolName} (ChatGPT)`);
  let current: { win: Window; openai: OpenAiGlobals } | undefined;
  const event = (name: string, detail: unknown) => options.onEvent?.(name, detail);

  const announce = (globals: Partial<OpenAiGlobals>) => {
    if (!current) return;
    Object.assign(current.openai, globals);
    const { win } = current;
    win.dispatchEvent(new (win as unknown as typeof globalThis).CustomEvent("openai:set_globals", { detail: { globals } }));
  };

  window.__worldcrafterChatGpt ??= {};
  window.__worldcrafterChatGpt[id] = (win) => {
    const openai: OpenAiGlobals = {
      toolInput: options.toolInput,
      toolOutput: options.toolResult.structuredContent ?? null,
      toolResponseMetadata: options.toolResult._meta ?? null,
      widgetState,
      theme,
      displayMode,
      locale: options.locale ?? "en-US",
      maxHeight: 640,
      callTool: async (name, args) => {
        event("callTool", { name, args });
        return options.callTool(name, args);
      },
      setWidgetState: async (state) => {
        // Kept by the host (ChatGPT stores it with the message), handed back on the next render.
        widgetState = JSON.parse(JSON.stringify(state)) as Json;
        announce({ widgetState });
      },
      sendFollowUpMessage: async ({ prompt }) => event("followUp", prompt),
      requestDisplayMode: async ({ mode }) => {
        displayMode = mode;
        announce({ displayMode });
        return { mode };
      },
      notifyIntrinsicHeight: (height) => {
        frame.style.height = `${Math.min(Math.max(height, 80), 640)}px`;
      },
      openExternal: ({ href }) => event("openExternal", href),
    };
    current = { win, openai };
    return openai;
  };

  const render = () =>
    new Promise<void>((resolve) => {
      frame.addEventListener("load", () => resolve(), { once: true });
      const inject = `<script>window.openai=parent.__worldcrafterChatGpt[${JSON.stringify(id)}](window);</script>`;
      frame.srcdoc = options.html.replace(/<head>/i, `<head>${inject}`);
    });
  void render();

  return {
    get frame() {
      return frame;
    },
    async reload() {
      const next = newFrame(container, frame.title);
      frame.replaceWith(next);
      frame = next;
      current = undefined;
      await render();
    },
    setTheme(next) {
      theme = next;
      announce({ theme });
    },
    async close() {
      frame.remove();
      delete window.__worldcrafterChatGpt?.[id];
    },
  };
}
