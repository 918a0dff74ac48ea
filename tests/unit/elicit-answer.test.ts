import { describe, expect, it } from "vitest";
import { ElicitAnswerMisfit, elicitAnswerCheck } from "../../lib/mcp/runtime/elicit-answer";
import { ElicitResultSchema, type ElicitFormParams } from "../../lib/mcp/runtime/client-requests";

/**
 * An accepted form answer is checked against the form asked (client/elicitation §security), and a
 * form that cannot be checked fails before the question is sent, not after the person answered.
 */
const form = (requestedSchema: ElicitFormParams["requestedSchema"]): ElicitFormParams => ({ mode: "form", message: "?", requestedSchema });

describe("elicitAnswerCheck", () => {
  const confirm = elicitAnswerCheck(form({ type: "object", properties: { confirm: { type: "boolean" }, note: { type: "string", maxLength: 5 } }, required: ["confirm"] }));

  it("passes an answer that fits, and any decline or cancel", () => {
    expect(confirm({ action: "accept", content: { confirm: true, note: "ok" } })).toEqual({ action: "accept", content: { confirm: true, note: "ok" } });
    expect(confirm({ action: "decline" })).toEqual({ action: "decline" });
    expect(confirm({ action: "cancel" })).toEqual({ action: "cancel" });
  });

  it("refuses an accepted answer that does not fit: -32602 naming the field", () => {
    const contents: Record<string, string | boolean>[] = [{}, { confirm: "yes" }, { confirm: true, note: "too long" }, { confirm: true, note: "bell\u0007" }];
    for (const content of contents) {
      let thrown: unknown;
      try {
        confirm({ action: "accept", content });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(content)).toBeInstanceOf(ElicitAnswerMisfit);
      expect((thrown as ElicitAnswerMisfit).code).toBe(-32602);
      expect((thrown as ElicitAnswerMisfit).message).toMatch(/does not fit the requested schema: (confirm|note): /);
    }
  });

  // Outside probe (2026-11-29): a field the form never asked for reached the handler as sent.
  it("drops fields the form did not ask for", () => {
    expect(confirm({ action: "accept", content: { confirm: true, extra: "x", more: ["a"] } })).toEqual({ action: "accept", content: { confirm: true } });
  });

  it("an answer's values are flat: a nested object is not an answer (client/elicitation)", () => {
    expect(ElicitResultSchema.safeParse({ action: "accept", content: { name: "x", extra: { deep: 1 } } }).success).toBe(false);
    expect(ElicitResultSchema.safeParse({ action: "accept", content: { name: "x", n: 2, ok: false, tags: ["a", "b"] } }).success).toBe(true);
  });

  it("a form that cannot be checked (a pattern that is not a regular expression) throws before anything is asked", () => {
    expect(() => elicitAnswerCheck(form({ type: "object", properties: { x: { type: "string", pattern: "(?<!x" } } }))).toThrow(/elicitation form cannot be checked/);
  });

  it("URL forms carry no content to check", () => {
    expect(elicitAnswerCheck({ mode: "url", message: "?", url: "https://example.com", elicitationId: "e1" })({ action: "accept" })).toEqual({ action: "accept" });
  });
});
