import { z } from "zod";

/**
 * JSON Schema for a tool's input or output, generated once with zod 4's own converter.
 * 2025-11-25 makes JSON Schema 2020-12 the default dialect (basic/index §JSON Schema usage);
 * `$schema` is kept so older clients know which dialect they read.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;
}
