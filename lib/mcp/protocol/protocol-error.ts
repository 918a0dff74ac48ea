import { McpError } from "../../jsonrpc";

/**
 * An error a handler raises that must reach the client as a JSON-RPC error, never be folded
 * into an `isError` tool result: a missing client capability, a malformed answer from the
 * client, a URL elicitation demand.
 */
export class ProtocolError extends McpError {}

/**
 * Thrown through a handler when it asked the client for input that has not arrived yet
 * (2026-07-28 basic/patterns/mrtr). The transport turns it into an InputRequiredResult; the
 * handler runs again, from the top, when the client retries with the answers.
 */
export class InputRequired extends Error {
  override readonly name = "InputRequired";

  constructor(readonly requests: Readonly<Record<string, { method: string; params: Record<string, unknown> }>>) {
    super("input required");
  }
}
