import { DISPLAY_MODES, insetsOf, isJson, type HostContext, type Theme } from "./host";

/**
 * An MCP Apps host's context (ui/initialize, ui/notifications/host-context-changed) as the widgets
 * read it. Each field is checked for its type, a wrong one read as absent: the host's word is JSON
 * from another frame, and one field of the wrong type (availableDisplayModes a string,
 * containerDimensions a string) used to throw on every render, leaving the card blank or frozen
 * on its last result (outside probe, 2026-11-29). `fallback` is what the frame itself knows.
 */
export function hostContextOf(context: unknown, fallback: { theme: Theme; locale: string }): HostContext {
  const c = isJson(context) ? context : {};
  const dimensions = isJson(c.containerDimensions) ? c.containerDimensions : {};
  const maxHeight = typeof dimensions.maxHeight === "number" && Number.isFinite(dimensions.maxHeight) ? dimensions.maxHeight : undefined;
  const modes = Array.isArray(c.availableDisplayModes) ? c.availableDisplayModes : ["inline"];
  return {
    theme: c.theme === "dark" || c.theme === "light" ? c.theme : fallback.theme,
    displayMode: DISPLAY_MODES.find((m) => m === c.displayMode) ?? "inline",
    availableDisplayModes: DISPLAY_MODES.filter((m) => modes.includes(m)),
    locale: typeof c.locale === "string" && c.locale ? c.locale : fallback.locale,
    ...(typeof c.timeZone === "string" && c.timeZone ? { timeZone: c.timeZone } : {}),
    ...(maxHeight !== undefined ? { maxHeight } : {}),
    safeArea: insetsOf(c.safeAreaInsets),
  };
}
