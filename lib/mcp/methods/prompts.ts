import { z } from "zod";
import { McpError } from "../../jsonrpc";
import { createHandlerContext } from "../runtime/handler-context";
import { parseArgumentsOrInvalidParams, parseOrInvalidParams } from "../runtime/validate";
import type { MethodHandler } from "./method-env";
import { CursorParams } from "./list-params";
import { listForRevision } from "./list-by-revision";

const GetPromptParams = z.looseObject({
  name: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.string()).optional(),
});

export const listPrompts: MethodHandler = (env, { params, scope }) => {
  const { cursor } = parseOrInvalidParams(CursorParams, params);
  const page = env.registry.listPrompts(cursor);
  return listForRevision({ prompts: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) }, "prompts", scope.protocolVersion);
};

export const getPrompt: MethodHandler = async (env, { params, scope }) => {
  const { name, arguments: rawArgs } = parseOrInvalidParams(GetPromptParams, params);
  const prompt = env.registry.getPrompt(name);
  // server/prompts §error handling: invalid prompt name → -32602.
  if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${name}`, { name });
  const args = prompt.arguments ? parseArgumentsOrInvalidParams(prompt.arguments, rawArgs ?? {}, `arguments for prompt ${name}`) : {};
  const result = await prompt.get(args, createHandlerContext(scope, env.locales));
  return { ...result };
};
