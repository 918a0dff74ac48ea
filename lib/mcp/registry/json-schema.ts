import { z } from "zod";

/**
 * JSON Schema for a tool's input or output, generated once with zod 4's own converter.
 * 2025-11-25 makes JSON Schema 2020-12 the default dialect (basic/index §JSON Schema usage);
 * `$schema` is kept so older clients know which dialect they read.
 *
 * A zod type JSON cannot carry (z.date(), z.bigint(), z.map, z.set, symbols, functions,
 * z.custom/z.instanceof, a transform in an output) is refused here, naming `owner`: published as
 * `{}` it would tell the model nothing, and every value a client sends for it would then fail
 * validation.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output", owner: string): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "throw" }) as Record<string, unknown>;
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new Error(
      `${owner}: its ${io} schema has a type JSON Schema cannot express (${reason}); use types JSON can carry, ` +
        "e.g. z.iso.datetime() for a date, a string or number for a bigint, an array or record for a set or map",
    );
  }
}
