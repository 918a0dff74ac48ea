/**
 * Tool parameters mirrored into `Mcp-Param-{Name}` headers (2026-07-28 server/tools §x-mcp-header),
 * found once when the tool is registered. The rules are checked here so a bad annotation fails at
 * start-up, not on a client's request.
 */
export interface HeaderParam {
  /** The header name after `Mcp-Param-`, as annotated. */
  header: string;
  /** Property path from the root of the arguments (through `properties` only). */
  path: string[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ALLOWED_TYPES = new Set(["string", "integer", "boolean"]);

export function findHeaderParams(toolName: string, inputSchema: Record<string, unknown>): HeaderParam[] {
  const found: HeaderParam[] = [];
  const seen = new Set<string>();
  const walk = (schema: Record<string, unknown>, path: string[]) => {
    const properties = schema.properties;
    if (typeof properties !== "object" || properties === null) return;
    for (const [key, child] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof child !== "object" || child === null) continue;
      const prop = child as Record<string, unknown>;
      const header = prop["x-mcp-header"];
      if (header !== undefined) {
        const where = `tool ${toolName}, parameter ${[...path, key].join(".")}`;
        if (typeof header !== "string" || !TOKEN.test(header)) throw new Error(`x-mcp-header must be an HTTP token (${where})`);
        if (seen.has(header.toLowerCase())) throw new Error(`x-mcp-header "${header}" is used twice (${where})`);
        if (typeof prop.type !== "string" || !ALLOWED_TYPES.has(prop.type)) {
          throw new Error(`x-mcp-header applies only to string, integer or boolean parameters (${where})`);
        }
        seen.add(header.toLowerCase());
        found.push({ header, path: [...path, key] });
      }
      walk(prop, [...path, key]);
    }
  };
  walk(inputSchema, []);
  return found;
}
