/**
 * A failure a tool reports on purpose (an unknown id, a rule of the domain): its message is
 * written for the model, which reads it in the isError result and corrects itself
 * (server/tools §error handling). Anything else a tool throws is also folded into an isError
 * result, but it is unexpected, so the server log gets its stack.
 */
export class ToolError extends Error {
  override name = "ToolError";
}
