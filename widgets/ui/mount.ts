import { connectHost } from "../bridge/connect";
import type { WidgetHost } from "../bridge/host";
import { h } from "./dom";
import { stringsFor, type Strings } from "./i18n";
import "./base.css";

/** What a widget's view is given on each render. */
export interface ViewContext {
  host: WidgetHost;
  rerender: () => void;
  /** The strings of the host's current locale. */
  t: Strings;
}

/**
 * Starts a widget: connects to its host, follows the host's theme, locale, display mode, safe area
 * and maxHeight, and renders `view` into #root whenever input, result, context or state change
 * (views are small; a full re-render keeps them simple). Focus and the caret survive it: the
 * element with focus is found again by id. Before a result: "preparing" while the host streams
 * the arguments, or the cancellation, as the host reports them.
 */
export async function mountWidget(name: string, view: (ctx: ViewContext) => Node): Promise<void> {
  const root = document.getElementById("root");
  if (!root) throw new Error("#root is missing");
  const host = await connectHost(name, "1.0.0");
  // What the user typed is widget state already; saving it once more answers the teardown.
  host.onTeardown(() => {
    const state = host.widgetState();
    if (state) host.setWidgetState(state);
  });
  const render = () => {
    const context = host.context();
    const t = stringsFor(context.locale);
    const html = document.documentElement;
    html.dataset.theme = context.theme;
    html.dataset.displayMode = context.displayMode;
    html.style.colorScheme = context.theme;
    html.lang = context.locale;
    const { top, right, bottom, left } = context.safeArea;
    root.style.padding = `${top}px ${right}px ${bottom}px ${left}px`;
    // Inline, the host gives at most maxHeight: the widget scrolls inside rather than being cut.
    root.style.maxHeight = context.maxHeight && context.displayMode !== "fullscreen" ? `${context.maxHeight}px` : "";
    const focused = document.activeElement instanceof HTMLInputElement || document.activeElement instanceof HTMLTextAreaElement ? document.activeElement : undefined;
    const caret = focused?.id ? focused.selectionStart : null;
    const phase = host.phase();
    const content =
      !host.toolResult() && phase.phase !== "ready"
        ? h("div", { class: "empty", attrs: { role: "status", "data-testid": "phase" } }, phase.phase === "preparing" ? t.preparing : [t.cancelled, phase.reason].filter(Boolean).join(" "))
        : view({ host, rerender: render, t });
    root.replaceChildren(content);
    if (focused?.id) {
      const again = document.getElementById(focused.id);
      if (again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement) {
        again.focus();
        if (caret !== null) again.setSelectionRange(caret, caret);
      }
    }
    // The content's own height, as the MCP Apps bridge measures it: scrollHeight is never less than
    // the frame, so once the host grew the frame it could never shrink it again.
    host.notifyHeight(Math.ceil(html.getBoundingClientRect().height));
  };
  host.onChange(render);
  render();
}
