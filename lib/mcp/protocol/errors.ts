import { ErrorCode, McpError } from "../../jsonrpc";

/** server/resources §error handling: -32002 with the uri in data. Handlers may throw it too. */
export function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, "Resource not found", { uri });
}
