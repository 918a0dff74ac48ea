import { z } from "zod";
import { McpError } from "../../jsonrpc";
import { parseArgumentsOrInvalidParams, parseOrInvalidParams } from "../runtime/validate";
import type { Completer } from "../registry";
import type { MethodHandler } from "./method-env";
import { createHandlerContext } from "../runtime/handler-context";
import { ownEntry } from "../protocol/own-property";

/** server/utilities/completion: at most 100 values per response. */
const MAX_VALUES = 100;

const CompleteParams = z.looseObject({
  ref: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("ref/prompt"), name: z.string().min(1) }),
    z.looseObject({ type: z.literal("ref/resource"), uri: z.string().min(1) }),
  ]),
  argument: z.looseObject({ name: z.string().min(1), value: z.string().max(4096) }),
  context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});

export const complete: MethodHandler = async (env, { params, scope }) => {
  const { ref, argument, context } = parseOrInvalidParams(CompleteParams, params);
  let completers: Record<string, Completer> | undefined;
  // The value typed so far and the other arguments reach the app's queries like any argument.
  parseArgumentsOrInvalidParams(z.unknown(), { value: argument.value, arguments: context?.arguments ?? {} }, "completion argument");
  if (ref.type === "ref/prompt") {
    const prompt = env.registry.getPrompt(ref.name);
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${ref.name}`, { name: ref.name });
    completers = prompt.complete;
  } else {
    const template = env.registry.getTemplate(ref.uri);
    if (!template) {
      // A static resource has no variables to complete; anything else is unknown.
      if (env.registry.findResource(ref.uri)?.kind === "static") return { completion: { values: [], hasMore: false } };
      throw McpError.invalidParams(`Unknown resource template: ${ref.uri}`, { uri: ref.uri });
    }
    completers = template.definition.complete;
  }
  const completer = ownEntry(completers, argument.name);
  if (!completer) return { completion: { values: [], hasMore: false } };
  const all = await completer(argument.value, { arguments: context?.arguments ?? {}, ctx: createHandlerContext(scope, env.locales) });
  return {
    completion: { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES },
  };
};
