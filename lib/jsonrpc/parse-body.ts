import { ErrorCode } from "./error-codes";
import { McpError } from "./mcp-error";

/** JSON nesting deeper than this is refused before it can reach a handler (or blow a stack). */
export const MAX_JSON_DEPTH = 64;

/**
 * Depth of nested arrays/objects in a JSON text, counted without parsing it into objects.
 * Strings are skipped so brackets inside them don't count.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Parse a POST body as JSON or throw the JSON-RPC parse error (-32700, id null). */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: JSON nesting deeper than ${maxDepth} levels`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new McpError(ErrorCode.ParseError, "Parse error: Invalid JSON");
  }
}
