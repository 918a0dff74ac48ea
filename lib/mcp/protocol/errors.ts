import { ErrorCode, McpError } from "../../jsonrpc";

/**
 * server/resources §error handling: -32002 with the uri in data. Handlers may throw it too, with a
 * `hint` saying what to read instead; the message always ends with where to look.
 */
export function resourceNotFound(uri: string, hint?: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found.${hint ? ` ${hint}` : ""} resources/list and resources/templates/list name what can be read.`, { uri });
}
