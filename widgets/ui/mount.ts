import { connectHost } from "../bridge/connect";
import type { WidgetHost } from "../bridge/host";
import "./base.css";

/**
 * Starts a widget: connects to its host, follows the host's theme, and renders `view` into
 * #root whenever input, result, context or state change (views are small; a full re-render
 * keeps them simple). Focus and the caret survive it: the element with focus is found again by id.
 */
export async function mountWidget(name: string, view: (host: WidgetHost, rerender: () => void) => Node): Promise<void> {
  const root = document.getElementById("root");
  if (!root) throw new Error("#root is missing");
  const host = await connectHost(name, "1.0.0");
  const render = () => {
    const context = host.context();
    document.documentElement.dataset.theme = context.theme;
    document.documentElement.style.colorScheme = context.theme;
    document.documentElement.lang = context.locale;
    const focused = document.activeElement instanceof HTMLInputElement && document.activeElement.id ? document.activeElement : undefined;
    const caret = focused?.selectionStart ?? null;
    root.replaceChildren(view(host, render));
    if (focused) {
      const again = document.getElementById(focused.id);
      if (again instanceof HTMLInputElement) {
        again.focus();
        if (caret !== null) again.setSelectionRange(caret, caret);
      }
    }
    host.notifyHeight(document.documentElement.scrollHeight);
  };
  host.onChange(render);
  render();
}
