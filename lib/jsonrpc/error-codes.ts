/**
 * The one table of JSON-RPC error codes this server speaks, with the HTTP status used when an
 * error is the whole answer to an HTTP request (a transport-level refusal).
 *
 * JSON-RPC 2.0 §5.1 reserves -32768..-32000; -32099..-32000 are "server errors" that an
 * implementation may define. MCP defines -32002 (resource not found, server/resources) and
 * -32042 (URL elicitation required, 2025-11-25 client/elicitation).
 *
 * Errors for a well-formed request that was dispatched travel in a 200 response (the HTTP
 * exchange succeeded; the JSON-RPC call failed) — see `lib/mcp/transport`.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Seed 001: "Rate limit exceeded" with data.retryAfter. */
  RateLimited: -32000,
  /** Seed 001: bearer token missing or invalid. */
  Unauthorized: -32001,
  /** MCP server/resources: the requested resource does not exist. */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25 client/elicitation: the call needs a URL-mode elicitation first. */
  UrlElicitationRequired: -32042,
  /** MCP 2026-07-28 transports: a required header is missing or disagrees with the body. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28 basic: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28 versioning: the request's protocol version is not one we speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.ResourceNotFound]: 404,
  [ErrorCode.UrlElicitationRequired]: 400,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
};

/** HTTP status for an error that ends the HTTP exchange itself. Unknown codes map to 500. */
export function httpStatusForCode(code: number): number {
  return HTTP_STATUS[code as ErrorCode] ?? 500;
}
