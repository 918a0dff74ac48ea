/**
 * Tool parameters mirrored into `Mcp-Param-{Name}` headers (2026-07-28 server/tools §x-mcp-header),
 * found once when the tool is registered. The rules are checked here so a bad annotation fails at
 * start-up, not on a client's request: clients MUST drop a tool whose annotation breaks any of
 * them (basic/transports/streamable-http §custom headers from tool parameters).
 */
export interface HeaderParam {
  /** The header name after `Mcp-Param-`, as annotated. */
  header: string;
  /** Property path from the root of the arguments (through `properties` only). */
  path: string[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ALLOWED_TYPES = new Set(["string", "integer", "boolean"]);
const SPEC = "2026-07-28 basic/transports/streamable-http §custom headers from tool parameters";

/** Keywords whose value is instance data, not a schema: an `x-mcp-header` key inside one is data. */
const VALUE_KEYWORDS = new Set(["const", "enum", "default", "examples"]);
/** Keywords whose value maps names to schemas: its keys are names, its values schemas. */
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON Pointer step (RFC 6901 §3), so a location names a property whose name holds "/" exactly. */
function step(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The schema's `x-mcp-header` parameters. Every subschema is visited, so an annotation the rules
 * place nowhere (under `items`, `anyOf`, `additionalProperties`, `$defs`, on the root itself) is
 * refused rather than ignored: only a property reached from the root through `properties` keys
 * alone may carry one.
 */
export function findHeaderParams(toolName: string, inputSchema: Record<string, unknown>): HeaderParam[] {
  const found: HeaderParam[] = [];
  const seen = new Set<string>();
  // `path` is the property path while the chain from the root is `properties` keys only.
  const visit = (schema: unknown, path: string[] | undefined, pointer: string) => {
    if (!isObject(schema)) return;
    const header = schema["x-mcp-header"];
    if (header !== undefined) {
      if (path === undefined || path.length === 0) {
        throw new Error(
          `x-mcp-header at ${pointer} is not on a property reached from the inputSchema root through "properties" alone; clients drop such a tool (tool ${toolName}; ${SPEC})`,
        );
      }
      const where = `tool ${toolName}, parameter ${path.join(".")}`;
      if (typeof header !== "string" || !TOKEN.test(header)) throw new Error(`x-mcp-header must be an HTTP token (${where})`);
      if (seen.has(header.toLowerCase())) throw new Error(`x-mcp-header "${header}" is used twice (${where})`);
      if (typeof schema.type !== "string" || !ALLOWED_TYPES.has(schema.type)) {
        throw new Error(`x-mcp-header applies only to string, integer or boolean parameters (${where})`);
      }
      seen.add(header.toLowerCase());
      found.push({ header, path });
    }
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === "x-mcp-header" || VALUE_KEYWORDS.has(keyword)) continue;
      const at = `${pointer}/${step(keyword)}`;
      if (SCHEMA_MAP_KEYWORDS.has(keyword) && isObject(value)) {
        for (const [name, child] of Object.entries(value)) {
          visit(child, keyword === "properties" && path !== undefined ? [...path, name] : undefined, `${at}/${step(name)}`);
        }
      } else if (Array.isArray(value)) {
        value.forEach((child, i) => visit(child, undefined, `${at}/${i}`));
      } else {
        visit(value, undefined, at);
      }
    }
  };
  visit(inputSchema, [], "#");
  return found;
}
