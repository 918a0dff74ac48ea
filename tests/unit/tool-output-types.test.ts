/**
 * A tool with `output` returns structuredContent of that type: a mismatch is a type error, not a
 * -32603 at run time. The `@ts-expect-error` lines are the test: `npx tsc --noEmit -p .` (tests
 * are in tsconfig's include) fails if any of them type-checks. Each call stays on one line so
 * the directive covers the error, wherever tsc reports it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toolErrorResult } from "../../lib/mcp";

const input = z.object({});
const output = z.object({ n: z.number() });

describe("defineTool ties a handler's structuredContent to its output", () => {
  it("accepts results of the output's type, isError results, and any result for a tool without output", () => {
    const tools = [
      defineTool({ name: "ok", description: "n", input, output, handler: () => ({ content: [], structuredContent: { n: 1 } }) }),
      defineTool({ name: "async_ok", description: "n", input, output, handler: async () => ({ content: [], structuredContent: { n: 2 } }) }),
      defineTool({ name: "fails", description: "n", input, output, handler: () => toolErrorResult("internal", "no n today") }),
      defineTool({ name: "free", description: "no output", input, handler: () => ({ content: [], structuredContent: { anything: true } }) }),
      defineTool({ name: "text_only", description: "no output", input, handler: () => ({ content: [{ type: "text", text: "hi" }] }) }),
      // A handler returning `new Promise(…)` still gets CallToolResult as its type.
      defineTool({ name: "hangs", description: "no output", input, handler: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))) }),
    ];
    expect(tools.map((t) => t.name)).toEqual(["ok", "async_ok", "fails", "free", "text_only", "hangs"]);
  });

  it("refuses structuredContent that does not match (type errors, checked by tsc)", () => {
    const refused = [
      // @ts-expect-error n must be a number
      defineTool({ name: "wrong_type", description: "n", input, output: z.object({ n: z.number() }), handler: () => ({ content: [], structuredContent: { n: "x" } }) }),
      // @ts-expect-error a successful result of a tool with output carries structuredContent
      defineTool({ name: "missing", description: "n", input, output, handler: () => ({ content: [] }) }),
      // @ts-expect-error n is missing (async handler)
      defineTool({ name: "async_wrong", description: "n", input, output, handler: async () => ({ content: [], structuredContent: { m: 1 } }) }),
      // @ts-expect-error isError: false is a successful result
      defineTool({ name: "not_an_error", description: "n", input, output, handler: () => ({ content: [], isError: false, structuredContent: { n: "x" } }) }),
    ];
    expect(refused).toHaveLength(4);
  });
});
