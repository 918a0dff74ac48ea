import type { ToolResult } from "../bridge/host";
import { firstText, h } from "./dom";

/**
 * A widget's host calls in progress and its one line of feedback. Kept at module level by each
 * widget, so it survives the full re-renders of mountWidget.
 */
export class Activity {
  busy = false;
  private status = { text: "", error: false };

  /** Shows `label` while `work` runs (buttons disabled), then what it returns, or its error. */
  async run(rerender: () => void, label: string, work: () => Promise<string>): Promise<void> {
    this.busy = true;
    this.status = { text: label, error: false };
    rerender();
    try {
      this.status = { text: await work(), error: false };
    } catch (error) {
      this.status = { text: error instanceof Error ? error.message : String(error), error: true };
    }
    this.busy = false;
    rerender();
  }

  /**
   * A host request with nothing to report when it works (a follow-up, a display mode, a modal):
   * a host may refuse it, and the refusal is shown here rather than lost as an unhandled rejection.
   */
  async attempt(rerender: () => void, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.status = { text: error instanceof Error ? error.message : String(error), error: true };
      rerender();
    }
  }

  /** An error found before any call (a missing field). */
  fail(text: string): void {
    this.status = { text, error: true };
  }

  /** The feedback line, announced politely to screen readers. */
  line(): HTMLParagraphElement {
    return h("p", { class: this.status.error ? "status error" : "status", attrs: { role: "status", "aria-live": "polite", "data-testid": "status" } }, this.status.text);
  }
}

/** The result, or its isError text thrown, for Activity.run to show. */
export function succeeded(result: ToolResult, fallback = "The tool failed."): ToolResult {
  if (result.isError) throw new Error(firstText(result.content) || fallback);
  return result;
}
