/**
 * JSON-RPC 2.0 message types as MCP uses them (MCP basic/index: ids are strings or integers,
 * never null, and `params` is an object when present).
 */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** One classified element of a POST body. `invalid` carries the error to answer it with. */
export type ClassifiedMessage =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  /**
   * An error response's id is null when it names no request; `idOmitted` when the member was
   * absent, which only the 2025-11-25 schema allows (JSONRPCErrorResponse.id is optional there).
   */
  | { kind: "response"; message: JsonRpcResponse; idOmitted?: true }
  | { kind: "invalid"; id: JsonRpcId | null; error: JsonRpcErrorObject };
