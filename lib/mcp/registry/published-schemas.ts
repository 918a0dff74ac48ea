import { toJsonSchema } from "./json-schema";
import { checkObjectRoot } from "./rules";
import { ToolErrorContent } from "../runtime/tool-error";
import type { ToolDefinition } from "./definitions";

/**
 * The JSON Schemas a tool is published with (its `inputSchema` and `outputSchema`), made from its
 * zod schemas. zod's converter costs about half a millisecond a tool on a fast machine, so a
 * server of a dozen tools paid several ms of its cold start for them (bench/PROFILING.md, round
 * 28). A deployment can make them when it builds (`publishedSchemasOf`, written to a JSON file)
 * and hand them to the registry (RegistryOptions.schemas), which then converts nothing at start-up.
 */
export interface PublishedToolSchemas {
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** Published schemas by tool name: what `publishedSchemasOf` makes, as JSON round-trips it. */
export type PublishedSchemas = Readonly<Record<string, PublishedToolSchemas>>;

/** A generated schema without its `$schema` keyword, to nest inside another. */
function nested(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema"));
}

let errorEnvelope: Record<string, unknown> | undefined;

/** The error envelope of isError results (tool-error.ts), as JSON Schema; made on first need. */
function errorEnvelopeSchema(): Record<string, unknown> {
  errorEnvelope ??= nested(toJsonSchema(ToolErrorContent, "output", "The tool error envelope"));
  return errorEnvelope;
}

/**
 * A tool's published outputSchema: its successful structuredContent (`output`) or the error
 * envelope of an isError result. The core checks only successful results against `output`
 * (server/tools §output schema), but SDK 1.x clients validate any structuredContent they get,
 * errors included, so the published schema names both shapes.
 */
function outputSchemaOf(name: string, output: NonNullable<ToolDefinition["output"]>): Record<string, unknown> {
  const success = toJsonSchema(output, "output", `Tool ${name}`);
  // The check is on `output` itself: the anyOf below always has "type": "object" at its root.
  checkObjectRoot(name, "outputSchema", success);
  return { $schema: success.$schema, type: "object", anyOf: [nested(success), errorEnvelopeSchema()] };
}

/** One tool's published schemas, converted now. */
export function publishedSchemaOf(def: ToolDefinition): PublishedToolSchemas {
  const inputSchema = def.inputJsonSchema ?? toJsonSchema(def.input, "input", `Tool ${def.name}`);
  return def.output ? { inputSchema, outputSchema: outputSchemaOf(def.name, def.output) } : { inputSchema };
}

/** Every tool's published schemas, by name: what a build writes for RegistryOptions.schemas. */
export function publishedSchemasOf(tools: readonly ToolDefinition[]): Record<string, PublishedToolSchemas> {
  return Object.fromEntries(tools.map((def) => [def.name, publishedSchemaOf(def)]));
}
