import type { ToolResult } from "../bridge/host";
import { firstText, h, record, text } from "./dom";

/**
 * The message of a failed tool result (isError): its text, else the server's
 * structuredContent.error.message (all ChatGPT hands a widget), else `fallback`. Undefined when
 * the result did not fail.
 */
export function failureOf(result: ToolResult | undefined, fallback: string): string | undefined {
  if (!result?.isError) return undefined;
  return firstText(result.content) || text(record(result.structuredContent?.error), "message") || fallback;
}

/** A failed result shown as what it is, instead of an empty state ("No worlds yet"). */
export function failureView(result: ToolResult | undefined, fallback: string): HTMLElement | undefined {
  const message = failureOf(result, fallback);
  return message === undefined ? undefined : h("div", { class: "empty status error", attrs: { role: "alert" } }, message);
}
