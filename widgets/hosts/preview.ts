import type { Theme } from "../bridge/host";
import { mountChatGptHost } from "./chatgpt-host";
import { mountMcpAppsHost } from "./mcp-apps-host";
import type { EmulatedHost } from "./host-options";
import { SAMPLES, sampleServer } from "./samples";
import "./preview.css";

/**
 * The /preview page: every widget with sample data, in an emulated ChatGPT and an emulated MCP
 * Apps host side by side. The emulators are also on `window.WorldCrafterHosts`, where the browser
 * tests use them with real widget HTML and a real server.
 */

declare global {
  interface Window {
    WorldCrafterHosts?: { mountChatGptHost: typeof mountChatGptHost; mountMcpAppsHost: typeof mountMcpAppsHost };
  }
}

window.WorldCrafterHosts = { mountChatGptHost, mountMcpAppsHost };

/** The locales of the widgets' string table, as a host would send them. */
const LOCALES = ["en-US", "en-GB", "fr-FR", "es-ES", "ja-JP", "ko-KR", "zh-CN"];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function renderPreview(root: HTMLElement, widgets: Record<string, string>): Promise<void> {
  const hosts: EmulatedHost[] = [];
  const toggle = el("button", "theme-toggle", "Dark theme");
  toggle.type = "button";
  let theme: Theme = "light";
  toggle.addEventListener("click", () => {
    theme = theme === "light" ? "dark" : "light";
    toggle.textContent = theme === "light" ? "Dark theme" : "Light theme";
    document.documentElement.dataset.theme = theme;
    for (const host of hosts) host.setTheme(theme);
  });
  const locales = el("select", "locale");
  locales.setAttribute("aria-label", "Host locale");
  for (const tag of LOCALES) {
    const option = el("option", "", tag);
    option.value = tag;
    locales.append(option);
  }
  locales.addEventListener("change", () => {
    for (const host of hosts) host.setLocale(locales.value);
  });
  root.append(toggle, locales);
  for (const sample of SAMPLES) {
    const html = widgets[sample.widget];
    if (!html) continue;
    const section = el("section", "widget");
    section.append(el("h2", "", `${sample.widget} — ${sample.toolName}`));
    const grid = el("div", "grid");
    const log = el("ol", "log");
    log.setAttribute("aria-label", `${sample.widget} host events`);
    // In the document before mounting: a frame gets its window only once attached.
    section.append(grid, log);
    root.append(section);
    const onEvent = (name: string, detail: unknown) => log.append(el("li", "", `${name}: ${JSON.stringify(detail)}`));
    for (const [label, mount] of [
      ["ChatGPT (window.openai)", mountChatGptHost],
      ["MCP Apps host (ext-apps AppBridge)", mountMcpAppsHost],
    ] as const) {
      const pane = el("div", "pane");
      pane.append(el("h3", "", label));
      grid.append(pane);
      hosts.push(await mount(pane, { html, toolName: sample.toolName, toolInput: sample.toolInput, toolResult: sample.toolResult, callTool: sampleServer, theme, locale: locales.value, onEvent }));
    }
  }
}

// `/preview?bare`: the emulators alone, for the browser tests to mount real widgets with.
const data = document.getElementById("preview-widgets");
const root = document.getElementById("preview");
if (data && root && !new URLSearchParams(location.search).has("bare")) void renderPreview(root, JSON.parse(data.textContent ?? "{}") as Record<string, string>);
