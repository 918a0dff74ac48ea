import { z } from "zod";
import { definePrompt, defineResource, defineResourceTemplate } from "../mcp";
import { PNG_1X1 } from "./media";

/** Resources and prompts the conformance suite reads by name. */
export const fixtureResources = [
  defineResource({
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource",
    mimeType: "text/plain",
    read: () => [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  }),
  defineResource({
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (PNG)",
    mimeType: "image/png",
    read: () => [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG_1X1 }],
  }),
  defineResource({
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource clients can subscribe to",
    mimeType: "text/plain",
    read: () => [{ uri: "test://watched-resource", mimeType: "text/plain", text: `Watched at ${new Date().toISOString()}` }],
  }),
];

export const fixtureTemplates = [
  defineResourceTemplate({
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "Data for an id",
    mimeType: "application/json",
    complete: { id: (value) => ["123", "456", "789"].filter((v) => v.startsWith(value)) },
    read: (uri, { id }) => [
      { uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) },
    ],
  }),
];

export const fixturePrompts = [
  definePrompt({
    name: "test_simple_prompt",
    description: "A prompt without arguments",
    get: () => ({ messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] }),
  }),
  definePrompt({
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: z.object({ arg1: z.string().describe("First test argument"), arg2: z.string().describe("Second test argument") }),
    get: ({ arg1, arg2 }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  }),
  definePrompt({
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds a resource",
    arguments: z.object({ resourceUri: z.string().max(2048).describe("URI of the resource to embed") }),
    get: ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  }),
  definePrompt({
    name: "test_prompt_with_image",
    description: "A prompt that carries an image",
    get: () => ({
      messages: [
        { role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    }),
  }),
  definePrompt({
    name: "test_input_required_result_prompt",
    description: "A prompt that asks the user for context first",
    get: async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          mode: "form",
          message: "What context should the prompt use?",
          requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
        },
        { key: "user_context" },
      );
      return { messages: [{ role: "user", content: { type: "text", text: `Context: ${String(answer.content?.context ?? "none")}` } }] };
    },
  }),
];
