import { z } from "zod";

/**
 * Shapes of the server → client requests a handler may make (client/elicitation,
 * client/sampling, client/roots) and zod schemas for the client's answers, which are input
 * at our edge like any other.
 */
export interface ElicitFormParams {
  mode?: "form";
  message: string;
  requestedSchema: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };
}

export interface ElicitUrlParams {
  mode: "url";
  message: string;
  url: string;
  elicitationId: string;
}

export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** client/elicitation: an answer's values are flat, primitives or (a multi-select) arrays of strings. */
const ElicitValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const ElicitResultSchema = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), ElicitValue).optional(),
});
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

export interface SamplingMessage {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
}

export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
  includeContext?: "none" | "thisServer" | "allServers";
  metadata?: Record<string, unknown>;
}

export const CreateMessageResultSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.looseObject({ type: z.string() }), z.array(z.looseObject({ type: z.string() }))]),
  model: z.string(),
  stopReason: z.string().optional(),
});
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;

/** client/roots §Root: a root's `uri` MUST be a `file://` URI; anything else is not a root. */
const RootUri = z.string().refine((uri) => uri.startsWith("file://") && URL.canParse(uri), "A root's uri must be a file:// URI");

export const ListRootsResultSchema = z.looseObject({
  roots: z.array(z.looseObject({ uri: RootUri, name: z.string().optional() })),
});
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

// Which capability each request needs is a protocol fact: it lives with the others.
export type { ServerRequestMethod } from "../protocol/client-capabilities";
