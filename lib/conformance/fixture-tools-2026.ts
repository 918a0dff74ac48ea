import { z } from "zod";
import { defineTool } from "../mcp";
import { fixtureRegistry } from "./fixture-registry";

/**
 * Fixtures the conformance suite calls at 2026-07-28: multi-round-trip requests (the handler
 * asks with ctx.elicit/sample/listRoots exactly as in the 2025 era; the transport makes rounds
 * of it), capability errors, logging without a level, list-change triggers and header mirroring.
 */
const empty = z.object({});

const askName = { type: "object" as const, properties: { name: { type: "string", description: "Your name" } }, required: ["name"] };
const askOk = { type: "object" as const, properties: { ok: { type: "boolean", description: "Continue?" } }, required: ["ok"] };

function text(value: string) {
  return { content: [{ type: "text" as const, text: value }] };
}

export const fixtureTools2026 = [
  defineTool({
    name: "test_missing_capability",
    description: "Needs the client's sampling capability",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 20 });
      return text(`Sampled with ${answer.model}`);
    },
  }),
  defineTool({
    name: "test_streaming_elicitation",
    description: "Asks the user to confirm before it continues",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", message: "Continue?", requestedSchema: askOk }, { key: "confirm" });
      return text(`Confirmed: ${answer.action}`);
    },
  }),
  defineTool({
    name: "test_logging_tool",
    description: "Logs twice, then answers",
    input: empty,
    handler: async (_args, ctx) => {
      await ctx.log("info", "test_logging_tool started");
      await ctx.log("debug", "test_logging_tool finishing");
      return text("Logged");
    },
  }),
  defineTool({
    name: "test_trigger_tool_change",
    description: "Announces a tools list change (the list itself stays the same)",
    input: empty,
    handler: async () => {
      const registry = fixtureRegistry();
      const self = registry.getTool("test_trigger_tool_change");
      if (self) registry.addTool(self.definition);
      return text("tools/list_changed sent");
    },
  }),
  defineTool({
    name: "test_trigger_prompt_change",
    description: "Announces a prompts list change (the list itself stays the same)",
    input: empty,
    handler: async () => {
      const registry = fixtureRegistry();
      const prompt = registry.getPrompt("test_simple_prompt");
      if (prompt) registry.addPrompt(prompt);
      return text("prompts/list_changed sent");
    },
  }),
  defineTool({
    name: "test_input_required_result_elicitation",
    description: "Asks for the user's name",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", message: "What is your name?", requestedSchema: askName }, { key: "user_name" });
      return text(answer.action === "accept" ? `Hello, ${String(answer.content?.name ?? "stranger")}!` : `No name (${answer.action})`);
    },
  }),
  defineTool({
    name: "test_input_required_result_sampling",
    description: "Asks the client's model a question",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.sample(
        { messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }], maxTokens: 100 },
        { key: "capital_question" },
      );
      const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      return text(`Model says: ${typeof content?.text === "string" ? content.text : "?"}`);
    },
  }),
  defineTool({
    name: "test_input_required_result_list_roots",
    description: "Asks the client for its roots",
    input: empty,
    handler: async (_args, ctx) => {
      const { roots } = await ctx.listRoots({ key: "client_roots" });
      return text(`Roots: ${roots.map((r) => r.uri).join(", ") || "none"}`);
    },
  }),
  defineTool({
    name: "test_input_required_result_request_state",
    description: "Asks for confirmation; the answer comes back with the signed request state",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", message: "Confirm?", requestedSchema: askOk }, { key: "confirm" });
      return text(`state-ok (${answer.action})`);
    },
  }),
  defineTool({
    name: "test_input_required_result_multiple_inputs",
    description: "Asks three things at once: a name, a model greeting and the roots",
    input: empty,
    handler: async (_args, ctx) => {
      const [name, greeting, roots] = await Promise.all([
        ctx.elicit({ mode: "form", message: "What is your name?", requestedSchema: askName }, { key: "user_name" }),
        ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Write a greeting" } }], maxTokens: 50 }, { key: "greeting" }),
        ctx.listRoots({ key: "client_roots" }),
      ]);
      const g = Array.isArray(greeting.content) ? greeting.content[0] : greeting.content;
      return text(`${String(name.content?.name)}: ${typeof g?.text === "string" ? g.text : ""} (${roots.roots.length} roots)`);
    },
  }),
  defineTool({
    name: "test_input_required_result_multi_round",
    description: "Asks two questions, one after the other",
    input: empty,
    handler: async (_args, ctx) => {
      const first = await ctx.elicit({ mode: "form", message: "Your name?", requestedSchema: askName }, { key: "step1" });
      const second = await ctx.elicit(
        {
          mode: "form",
          message: "Your favourite colour?",
          requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
        },
        { key: "step2" },
      );
      return text(`${String(first.content?.name)} likes ${String(second.content?.color)}`);
    },
  }),
  defineTool({
    name: "test_input_required_result_tampered_state",
    description: "Asks for confirmation; a tampered request state must be refused",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ mode: "form", message: "Confirm?", requestedSchema: askOk }, { key: "confirm" });
      return text(`confirmed (${answer.action})`);
    },
  }),
  defineTool({
    name: "test_input_required_result_capabilities",
    description: "Asks only what the client declared it can answer",
    input: empty,
    handler: async (_args, ctx) => {
      const caps = ctx.clientCapabilities;
      if (caps.elicitation) {
        const answer = await ctx.elicit({ mode: "form", message: "Your name?", requestedSchema: askName }, { key: "user_name" });
        return text(`elicited (${answer.action})`);
      }
      if (caps.sampling) {
        const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Hello?" } }], maxTokens: 20 }, { key: "question" });
        return text(`sampled with ${answer.model}`);
      }
      const { roots } = await ctx.listRoots({ key: "client_roots" });
      return text(`${roots.length} roots`);
    },
  }),
  defineTool({
    name: "test_header_echo",
    description: "Echoes a region mirrored into the Mcp-Param-Region header",
    input: z.object({
      region: z.string().max(256).meta({ "x-mcp-header": "Region" }).describe("Region, mirrored into Mcp-Param-Region"),
      n: z.number().int().optional(),
    }),
    handler: ({ region }) => text(`region=${region}`),
  }),
];
