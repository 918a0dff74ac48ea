import { z } from "zod";
import { defineTool, ErrorCode, ToolError } from "../mcp";
import { ProtocolError } from "../mcp/protocol/protocol-error";

/**
 * Fixtures of the tasks extension's scenarios (SEP-2663, io.modelcontextprotocol/tasks): the
 * names and behaviours the suite's scenario descriptions require.
 */
function text(value: string) {
  return { content: [{ type: "text" as const, text: value }] };
}

/** Waits, or throws the signal's reason when the call (task) is cancelled first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const askConfirm = { type: "object" as const, properties: { confirm: { type: "boolean", description: "Go ahead?" } }, required: ["confirm"] };
const askName = { type: "object" as const, properties: { name: { type: "string", description: "Your name" } }, required: ["name"] };

export const fixtureToolsTasks = [
  defineTool({
    name: "greet",
    description: "Greets by name (never a task)",
    input: z.object({ name: z.string().max(200) }),
    handler: ({ name }) => text(`Hello, ${name}!`),
  }),
  defineTool({
    name: "slow_compute",
    description: "Sleeps `seconds` seconds, then answers; a task when the client supports tasks",
    input: z.object({ seconds: z.number().min(0).max(600), label: z.string().max(4000).optional() }),
    execution: { taskSupport: "optional" },
    handler: async ({ seconds, label }, ctx) => {
      const steps = Math.max(1, Math.ceil(seconds));
      for (let step = 1; step <= steps && seconds > 0; step++) {
        await pause((seconds * 1000) / steps, ctx.signal);
        await ctx.progress(step, steps);
      }
      return text(`Computed ${label ?? "result"} after ${seconds} s`);
    },
  }),
  defineTool({
    name: "failing_job",
    description: "Fails as a tool after about a second (task only)",
    input: z.object({}),
    execution: { taskSupport: "required" },
    handler: async (_args, ctx) => {
      await pause(1000, ctx.signal);
      throw new ToolError("failing_job failed on purpose");
    },
  }),
  defineTool({
    name: "protocol_error_job",
    description: "Ends in a protocol-level error (a failed task)",
    input: z.object({}),
    execution: { taskSupport: "optional" },
    handler: async (_args, ctx) => {
      await pause(200, ctx.signal);
      throw new ProtocolError(ErrorCode.InternalError, "protocol_error_job broke on purpose");
    },
  }),
  defineTool({
    name: "confirm_delete",
    description: "Asks the user to confirm, then 'deletes' the file",
    // First in tools/list by name, so the header scenarios call it with no arguments and no
    // elicitation capability: then it answers at once instead of failing their request.
    input: z.object({ filename: z.string().max(500).default("file.txt") }),
    execution: { taskSupport: "optional" },
    handler: async ({ filename }, ctx) => {
      if (!ctx.clientCapabilities.elicitation) return text(`Kept ${filename} (nobody to ask)`);
      const answer = await ctx.elicit({ mode: "form", message: `Delete ${filename}?`, requestedSchema: askConfirm }, { key: "confirm" });
      return text(answer.action === "accept" && answer.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  }),
  defineTool({
    name: "multi_input",
    description: "Asks two questions at once",
    input: z.object({}),
    execution: { taskSupport: "optional" },
    handler: async (_args, ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ mode: "form", message: "First name?", requestedSchema: askName }, { key: "first" }),
        ctx.elicit({ mode: "form", message: "Second name?", requestedSchema: askName }, { key: "second" }),
      ]);
      return text(`${String(first.content?.name)} and ${String(second.content?.name)}`);
    },
  }),
  defineTool({
    name: "test_tool_with_task",
    description: "Asks the user's name in an input round, then continues as a task",
    input: z.object({}),
    execution: { taskSupport: "required", taskStarts: "when_handler_asks" },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", message: "What is your name?", requestedSchema: askName }, { key: "user_name" });
      await ctx.continueAsTask();
      await pause(300, ctx.signal);
      return text(`Hello, ${String(answer.content?.name)}!`);
    },
  }),
];
