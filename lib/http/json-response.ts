import { httpStatusForCode, type McpError, failure, type JsonRpcId } from "../jsonrpc";
import { wholeBodyResponse } from "./whole-body";

const JSON_HEADERS = { "content-type": "application/json" } as const;

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", JSON_HEADERS["content-type"]);
  return wholeBodyResponse(JSON.stringify(body), { status, headers: h });
}

/** A transport-level refusal: the JSON-RPC error body with the status the error or its code dictates. */
export function errorResponse(error: McpError, id: JsonRpcId | null = null, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  for (const [k, v] of Object.entries(error.headers ?? {})) h.set(k, v);
  return jsonResponse(failure(id, error), error.httpStatus ?? httpStatusForCode(error.code), h);
}
