import { z } from "zod";
import type { CallToolResult, Meta } from "../protocol/types";
import { errorReference } from "./request-log";

/**
 * The machine-readable codes of tool execution errors, in one table: an isError result carries
 * one in `structuredContent.error.code` beside a reference `id` (the one the server log names)
 * and the message written for the model (server/tools §error handling). docs/errors.md lists them.
 */
export const TOOL_ERROR_CODES = {
  invalid_argument: "An argument is well-formed but wrong for the data (a bad cursor, a reference to a record that may not be used here); fix it and retry",
  not_found: "No such record for this caller (another user's record is answered the same way)",
  confirmation_required: "The call needs the user's explicit confirmation first",
  too_large: "The result would be too large; narrow the request",
  quota_exceeded: "The account already keeps as much as one account may; delete some first",
  unavailable: "A service the tool needs is down for now; retry later",
  timeout: "The tool did not finish in time and was stopped",
  client_request_failed: "A question to the client failed: a capability it lacks, a decline, no answer in time",
  sign_in_required: "The tool needs an account: sign in (account linking) and retry",
  internal: "An unexpected failure; the server log has the details under the id",
} as const;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;

const CODES = Object.keys(TOOL_ERROR_CODES) as [ToolErrorCode, ...ToolErrorCode[]];

/** The structuredContent of every isError result. */
export const ToolErrorContent = z.strictObject({
  error: z.strictObject({
    code: z.enum(CODES).describe("What kind of failure"),
    id: z.string().describe("A reference for this failure, as the server log names it"),
    message: z.string().describe("What went wrong, written for the model"),
  }),
});

/**
 * A failure a tool reports on purpose (an unknown id, a rule of the domain): its message is
 * written for the model, which reads it in the isError result and corrects itself
 * (server/tools §error handling). Anything else a tool throws is also folded into an isError
 * result, but it is unexpected, so the server log gets its stack.
 */
export class ToolError extends Error {
  override name = "ToolError";
  constructor(
    message: string,
    readonly code: ToolErrorCode = "invalid_argument",
  ) {
    super(message);
  }
}

/** An isError result: the message as text, and code, id and message in structuredContent. */
export function toolErrorResult(code: ToolErrorCode, message: string, options: { id?: string; meta?: Meta } = {}): CallToolResult & { isError: true } {
  const id = options.id ?? errorReference();
  return {
    content: [{ type: "text", text: message }],
    structuredContent: { error: { code, id, message } },
    isError: true,
    ...(options.meta ? { _meta: options.meta } : {}),
  };
}
