export { ErrorCode, httpStatusForCode } from "./error-codes";
export { McpError, toMcpError } from "./mcp-error";
export { classifyMessage, success, failure, MAX_ID_LENGTH } from "./envelope";
export { parseJsonBody, jsonDepthExceeds, MAX_JSON_DEPTH } from "./parse-body";
export { envelopeBytes, envelopeStream, preserialize, serializedBytesOf, serializedOf } from "./preserialized";
export type * from "./messages";
