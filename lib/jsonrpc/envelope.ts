import { ErrorCode } from "./error-codes";
import type { McpError } from "./mcp-error";
import type {
  ClassifiedMessage,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcSuccess,
} from "./messages";

/** Bounds on ids: a string id longer than this, or a number that JSON cannot echo exactly, is refused. */
export const MAX_ID_LENGTH = 256;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A usable id: a bounded string or a safe integer. Fractional, non-finite and unsafe integers are
 * refused because JSON.parse would round them and the echo would not match what the client sent.
 */
function readId(value: unknown): JsonRpcId | undefined {
  if (typeof value === "string") return value.length <= MAX_ID_LENGTH ? value : undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  return undefined;
}

function invalid(id: JsonRpcId | null, message: string, data?: unknown): ClassifiedMessage {
  return { kind: "invalid", id, error: { code: ErrorCode.InvalidRequest, message, ...(data === undefined ? {} : { data }) } };
}

/**
 * Classify one parsed JSON value as a request, notification, response or an invalid message
 * (JSON-RPC 2.0 §4, §5). The id of an invalid message is echoed only when it can be read,
 * otherwise it is null (§5: "If there was an error in detecting the id … it MUST be Null").
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isPlainObject(value)) return invalid(null, "Invalid Request: a JSON-RPC message must be an object");
  const hasId = "id" in value;
  const id = hasId ? readId(value.id) : undefined;
  const echoId = id ?? null;

  if (value.jsonrpc !== "2.0") return invalid(echoId, 'Invalid Request: "jsonrpc" must be "2.0"');

  // An error response that names no request: id null (JSON-RPC 2.0 §5, "if there was an error in
  // detecting the id") or absent (MCP 2025-11-25 schema, JSONRPCErrorResponse.id is optional).
  if (!("method" in value) && "error" in value && !("result" in value) && (!hasId || value.id === null)) {
    return errorResponse(value.error, null, echoId, !hasId);
  }

  if (hasId && id === undefined) {
    return invalid(null, "Invalid Request: id must be a string (at most 256 characters) or a safe integer");
  }

  if ("method" in value) {
    if (typeof value.method !== "string" || value.method.length === 0) {
      return invalid(echoId, 'Invalid Request: "method" must be a non-empty string');
    }
    if ("params" in value && value.params !== undefined && !isPlainObject(value.params)) {
      return invalid(echoId, 'Invalid Request: "params" must be an object');
    }
    const params = value.params as Record<string, unknown> | undefined;
    if (id === undefined) {
      return { kind: "notification", message: { jsonrpc: "2.0", method: value.method, ...(params ? { params } : {}) } };
    }
    return { kind: "request", message: { jsonrpc: "2.0", id, method: value.method, ...(params ? { params } : {}) } };
  }

  // No method: a response to a server-initiated request.
  if (id === undefined) return invalid(null, 'Invalid Request: missing "method" field');
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) {
    return invalid(echoId, 'Invalid Request: a response carries exactly one of "result" or "error"');
  }
  if (hasResult) {
    if (!isPlainObject(value.result)) return invalid(echoId, 'Invalid Request: "result" must be an object');
    return { kind: "response", message: { jsonrpc: "2.0", id, result: value.result } };
  }
  return errorResponse(value.error, id, echoId, false);
}

/** A client's error response (`id` null when it names no request), or why it is not one. */
function errorResponse(error: unknown, id: JsonRpcId | null, echoId: JsonRpcId | null, idOmitted: boolean): ClassifiedMessage {
  if (!isPlainObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
    return invalid(echoId, 'Invalid Request: "error" must be an object with a numeric code and a message');
  }
  return {
    kind: "response",
    message: { jsonrpc: "2.0", id, error: { code: error.code, message: error.message, ...("data" in error ? { data: error.data } : {}) } },
    ...(idOmitted ? { idOmitted: true as const } : {}),
  };
}

export function success(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: JsonRpcId | null, error: McpError | { code: number; message: string; data?: unknown }): JsonRpcFailure {
  const body = { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
  return { jsonrpc: "2.0", id, error: body };
}
