import { ErrorCode } from "./error-codes";
import { McpError } from "./mcp-error";
import { duplicateMemberName, hasDuplicateMembers } from "./duplicate-members";
import { cutText } from "../text/cut-text";

/** JSON nesting deeper than this is refused before it can reach a handler (or blow a stack). */
export const MAX_JSON_DEPTH = 64;

/**
 * Depth of nested arrays/objects in a JSON text, counted without parsing it into objects.
 * Strings are skipped so brackets inside them don't count.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  // Nesting deeper than `limit` needs more than `limit` opening brackets. Counting them with
  // indexOf (native) settles an ordinary request in a tenth of the character scan's time.
  if (openingBracketsAtMost(text, limit)) return false;
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

function openingBracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ["{", "["]) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++count > limit) return false;
    }
  }
  return true;
}

/**
 * Parse a POST body as JSON or throw the JSON-RPC parse error (-32700, id null); JSON an object of
 * which repeats a member name is an invalid request (-32600, id null: which id would be a guess),
 * as two readers could take it for two different requests (duplicate-members.ts).
 */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: JSON nesting deeper than ${maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpError(ErrorCode.ParseError, "Parse error: Invalid JSON");
  }
  if (hasDuplicateMembers(text, value)) {
    const name = duplicateMemberName(text) ?? "";
    throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: an object repeats the member name ${JSON.stringify(cutText(name, 64))}`);
  }
  return value;
}
