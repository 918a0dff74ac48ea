import { ErrorCode } from "./error-codes";
import { cutText } from "../text/cut-text";

/**
 * The single error type of the core. Anything thrown below the transport is normalized to one of
 * these by `toMcpError`, so the wire only ever sees codes from `error-codes.ts`.
 *
 * `httpStatus` is set only where the transport spec dictates a status for a refusal
 * (404 unknown session, 406, 415, 403 …); otherwise the code's table entry applies.
 */
export class McpError extends Error {
  override readonly name = "McpError";

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus?: number,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }

  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }

  static invalidRequest(message: string, data?: unknown, httpStatus?: number): McpError {
    return new McpError(ErrorCode.InvalidRequest, message, data, httpStatus);
  }

  static methodNotFound(method: string): McpError {
    // Echo a bounded name: an error must not grow with the attacker's input.
    const name = method.length > 128 ? `${cutText(method, 128)}…` : method;
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${name}`, { method: name });
  }

  static internal(message = "Internal error"): McpError {
    return new McpError(ErrorCode.InternalError, message);
  }
}

/**
 * Normalize anything thrown into an McpError. Unknown errors become a bare -32603 whose message
 * never carries the original text, stack or cause: those may hold secrets (connection strings,
 * tokens) and belong in the server log, not on the wire.
 */
export function toMcpError(thrown: unknown): McpError {
  if (thrown instanceof McpError) return thrown;
  return McpError.internal();
}
