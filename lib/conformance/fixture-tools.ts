import { z } from "zod";
import { defineTool } from "../mcp";
import { PNG_1X1, WAV_SILENT } from "./media";

/**
 * Tools the official conformance suite (@modelcontextprotocol/conformance, server scenarios)
 * calls by name, plus a few the end-to-end tests use to observe cancellation. They exist only
 * on the fixture route; the product registry never sees them.
 */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });

const empty = z.object({});

/** Request ids whose handler saw its AbortSignal fire, for tests to read back. */
const cancelled: { requestId: string | number; reason: string; at: number }[] = [];

export const fixtureTools = [
  defineTool({
    name: "test_simple_text",
    description: "Returns a simple text response",
    input: empty,
    handler: () => ({ content: [{ type: "text", text: "This is a simple text response for testing." }] }),
  }),
  defineTool({
    name: "test_image_content",
    description: "Returns an image",
    input: empty,
    handler: () => ({ content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] }),
  }),
  defineTool({
    name: "test_audio_content",
    description: "Returns audio",
    input: empty,
    handler: () => ({ content: [{ type: "audio", data: WAV_SILENT, mimeType: "audio/wav" }] }),
  }),
  defineTool({
    name: "test_embedded_resource",
    description: "Returns an embedded resource",
    input: empty,
    handler: () => ({
      content: [
        {
          type: "resource",
          resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
        },
      ],
    }),
  }),
  defineTool({
    name: "test_multiple_content_types",
    description: "Returns text, an image and a resource",
    input: empty,
    handler: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG_1X1, mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
        },
      ],
    }),
  }),
  defineTool({
    name: "test_tool_with_logging",
    description: "Sends three log notifications while running",
    input: empty,
    handler: async (_args, ctx) => {
      for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
        await ctx.log("info", data);
        await sleep(50);
      }
      return { content: [{ type: "text", text: "Tool with logging executed successfully" }] };
    },
  }),
  defineTool({
    name: "test_error_handling",
    description: "Always fails, as a tool execution error",
    input: empty,
    handler: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  }),
  defineTool({
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50 and 100",
    input: empty,
    handler: async (_args, ctx) => {
      for (const p of [0, 50, 100]) {
        await ctx.progress(p, 100, `Completed step ${p / 50 + 1} of 3`);
        await sleep(50);
      }
      return { content: [{ type: "text", text: "Progress test completed" }] };
    },
  }),
  defineTool({
    name: "test_sampling",
    description: "Asks the client's model to complete a prompt",
    input: z.object({ prompt: z.string().max(10_000) }),
    handler: async ({ prompt }, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 });
      const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      const text = content && typeof content.text === "string" ? content.text : JSON.stringify(content);
      return { content: [{ type: "text", text: `LLM response: ${text}` }] };
    },
  }),
  defineTool({
    name: "test_elicitation",
    description: "Asks the user for a username and an email",
    input: z.object({ message: z.string().max(10_000) }),
    handler: async ({ message }, ctx) => {
      const answer = await ctx.elicit({
        message,
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return {
        content: [{ type: "text", text: `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }],
      };
    },
  }),
  defineTool({
    name: "test_elicitation_sep1034_defaults",
    description: "Elicits a form whose fields carry defaults (SEP-1034)",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Please review and update the form fields with defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
        },
      });
      return {
        content: [{ type: "text", text: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }],
      };
    },
  }),
  defineTool({
    name: "test_elicitation_sep1330_enums",
    description: "Elicits every enum shape of SEP-1330",
    input: empty,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Please select options from the enum fields",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      });
      return {
        content: [{ type: "text", text: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }],
      };
    },
  }),
  defineTool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    input: z.looseObject({}),
    inputJsonSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
    handler: (args) => ({ content: [{ type: "text", text: `Received: ${JSON.stringify(args)}` }] }),
  }),
  defineTool({
    name: "test_reconnection",
    description: "Closes its SSE stream mid-call; the result arrives after the client reconnects (SEP-1699)",
    input: empty,
    handler: async (_args, ctx) => {
      ctx.closeStream();
      await sleep(200);
      return { content: [{ type: "text", text: "Reconnection test completed" }] };
    },
  }),
  defineTool({
    name: "test_slow",
    description: "Waits `ms` milliseconds (reporting progress) unless cancelled first",
    input: z.object({ ms: z.number().int().min(0).max(60_000).default(5_000) }),
    handler: async ({ ms }, ctx) => {
      const steps = 10;
      try {
        for (let i = 1; i <= steps; i++) {
          await sleep(ms / steps, ctx.signal);
          await ctx.progress(i, steps);
        }
      } catch {
        cancelled.push({ requestId: ctx.requestId, reason: String(ctx.signal.reason?.message ?? ctx.signal.reason), at: Date.now() });
        throw new Error("cancelled");
      }
      return { content: [{ type: "text", text: `Waited ${ms} ms` }] };
    },
  }),
  defineTool({
    name: "test_hang",
    description: "Never finishes on its own: only its signal (cancellation, session end, MCP_TOOL_TIMEOUT_MS) ends it",
    input: empty,
    handler: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          cancelled.push({ requestId: ctx.requestId, reason: String(ctx.signal.reason?.message ?? ctx.signal.reason), at: Date.now() });
          reject(new Error("stopped"));
        });
      }),
  }),
  defineTool({
    name: "test_throw",
    description: "Throws an unexpected error (not a ToolError): the server must answer isError and carry on",
    input: z.object({ message: z.string().max(200).default("boom") }),
    handler: ({ message }) => {
      throw new TypeError(message);
    },
  }),
  defineTool({
    name: "test_cancellations",
    description: "Lists the requests whose handler saw its AbortSignal fire",
    input: empty,
    output: z.object({ cancelled: z.array(z.object({ requestId: z.union([z.string(), z.number()]), reason: z.string(), at: z.number() })) }),
    handler: () => ({ content: [], structuredContent: { cancelled: [...cancelled] } }),
  }),
  defineTool({
    name: "test_structured",
    description: "Echoes a number as structured content validated against its output schema",
    input: z.object({ value: z.number(), lie: z.boolean().default(false) }),
    output: z.object({ doubled: z.number() }),
    handler: ({ value, lie }) => ({
      content: [],
      // The lie is the point: it proves the core's run-time check (-32603), which the types would refuse.
      structuredContent: lie ? ({ doubled: "not a number" } as unknown as { doubled: number }) : { doubled: value * 2 },
    }),
  }),
];
