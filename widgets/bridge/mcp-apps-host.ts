import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { McpAppsClient } from "./mcp-apps-client";
import { keepState, stateKey as keyOf } from "./state-key";
import { hostContextOf } from "./mcp-apps-context";
import {
  DISPLAY_MODES,
  Listeners,
  inlineFileArgument,
  isJson,
  systemTheme,
  toolResultOf,
  type CallPhase,
  type HostContext,
  type Json,
  type ToolResult,
  type WidgetHost,
} from "./host";

/**
 * An MCP Apps host (SEP-1865: Claude and others; ChatGPT too) through McpAppsClient. MCP Apps
 * keeps no widget state, so the bridge does (seed 003 §state management): in the frame's
 * localStorage when the sandbox allows it, else in memory, under a key of this widget and the result
 * it renders (state-key.ts), so a re-rendered frame finds it again and no other card shares it.
 */

const FONTS_STYLE_ID = "worldcrafter-host-fonts";

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

/** The host's style variables and font faces (hostContext.styles), as ext-apps' applyHost* do. */
function applyStyles(context: McpUiHostContext): void {
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (typeof value === "string" && name.startsWith("--")) document.documentElement.style.setProperty(name, value);
  }
  const fonts = context.styles?.css?.fonts;
  if (typeof fonts === "string") {
    let style = document.getElementById(FONTS_STYLE_ID);
    if (!style) {
      style = document.createElement("style");
      style.id = FONTS_STYLE_ID;
      document.head.append(style);
    }
    if (style.textContent !== fonts) style.textContent = fonts;
  }
}

export async function mcpAppsHost(widget: string, version: string): Promise<WidgetHost> {
  const listeners = new Listeners();
  const client = new McpAppsClient(window.parent);
  let input: Json | undefined;
  let result: ToolResult | undefined;
  let phase: CallPhase = { phase: "ready" };
  let context: McpUiHostContext = {};
  const store = storage();
  const memory = new Map<string, Json>();
  const teardown: Array<() => void> = [];

  const applyContext = (next: McpUiHostContext) => {
    context = { ...context, ...next };
    applyStyles(context);
  };
  /** The result this frame renders, with its call's id and arguments; worked out once per result (the card reads its state often). */
  let keyed: { for: readonly unknown[]; key: string } | undefined;
  const stateKey = () => {
    const parts = [context.toolInfo?.id, input, result] as const;
    if (!keyed || keyed.for.some((part, i) => part !== parts[i])) {
      keyed = { for: parts, key: keyOf(widget, { ...(parts[0] !== undefined ? { toolCallId: parts[0] } : {}), input, result }) };
    }
    return keyed.key;
  };

  // Handlers before connect: the host may send input and result right after initialization.
  client.onNotification("ui/notifications/tool-input-partial", (params) => {
    // The model is still writing the arguments: show them as "preparing", never act on them.
    if (result) return;
    phase = { phase: "preparing", partial: isJson(params.arguments) ? params.arguments : {} };
    listeners.emit();
  });
  client.onNotification("ui/notifications/tool-input", (params) => {
    input = isJson(params.arguments) ? params.arguments : {};
    if (phase.phase === "preparing") phase = { phase: "ready" };
    listeners.emit();
  });
  client.onNotification("ui/notifications/tool-result", (params) => {
    result = toolResultOf(params);
    phase = { phase: "ready" };
    listeners.emit();
  });
  client.onNotification("ui/notifications/tool-cancelled", (params) => {
    phase = { phase: "cancelled", reason: typeof params.reason === "string" ? params.reason : "" };
    listeners.emit();
  });
  client.onNotification("ui/notifications/host-context-changed", (params) => {
    applyContext(params);
    listeners.emit();
  });
  client.onRequest("ui/resource-teardown", () => {
    for (const save of teardown) save();
    return {};
  });

  await client.connect({ name: `worldcrafter-${widget}`, version }, { availableDisplayModes: [...DISPLAY_MODES] });
  applyContext(client.hostContext);

  // The host sizes the frame to the content (what ext-apps' autoResize does).
  let lastHeight = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    client.sizeChanged({ height, width: Math.ceil(document.documentElement.scrollWidth) });
  }).observe(document.documentElement);

  const host: WidgetHost = {
    kind: "mcp-apps",
    canModal: false,
    toolInput: () => input,
    toolResult: () => result,
    phase: () => phase,
    view: () => ({ mode: "inline" }),
    context: (): HostContext => hostContextOf(context, { theme: systemTheme(), locale: navigator.language }),
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
        if (store) keepState(store, key, JSON.stringify(state));
      } catch {
        // full or forbidden: the memory copy serves this frame's lifetime
      }
      // As ChatGPT announces a new widgetState (openai:set_globals), so does the bridge.
      listeners.emit();
    },
    callTool: async (name, args) => toolResultOf(await client.callTool(name, args)),
    sendFollowUp: async (prompt) => {
      await client.sendMessage(prompt);
    },
    requestDisplayMode: async (mode) => {
      const answer = await client.requestDisplayMode(mode);
      // The host answers the mode it actually chose; it also sends it in the context.
      const chosen = DISPLAY_MODES.find((m) => m === answer.mode);
      if (chosen && chosen !== context.displayMode) {
        context = { ...context, displayMode: chosen };
        listeners.emit();
      }
    },
    // The ResizeObserver above reports size changes itself.
    notifyHeight: () => undefined,
    openExternal: async (url) => {
      const answer = await client.openLink(url);
      if (answer.isError === true) throw new Error("The host did not open the link");
    },
    requestClose: async () => {
      client.requestTeardown();
    },
    requestModal: () => Promise.reject(new Error("This host has no modal")),
    // MCP Apps has no upload API: the file is read here and passed inline.
    fileArgument: inlineFileArgument,
    onTeardown: (save) => {
      teardown.push(save);
    },
    onChange: (listener) => listeners.add(listener),
  };
  return host;
}
