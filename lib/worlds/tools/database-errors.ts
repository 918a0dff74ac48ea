import type { ToolDefinition } from "../../mcp";
import { DatabaseUnavailable, isConnectionFailure } from "../data/errors";

/**
 * A data tool whose database connection fails answers "the database is unavailable" (an isError
 * result a model can relay, with no host or port in it) instead of the driver's message; the
 * server log says what happened. The pool reconnects by itself once the database is back.
 */
export function withDatabaseErrors(tool: ToolDefinition): ToolDefinition {
  const handler: ToolDefinition["handler"] = async (args, ctx) => {
    try {
      return await tool.handler(args, ctx);
    } catch (thrown) {
      if (!isConnectionFailure(thrown)) throw thrown;
      const code = typeof (thrown as { code?: unknown }).code === "string" ? (thrown as { code: string }).code : "connection lost";
      process.stderr.write(`${tool.name}: database unavailable (${code})\n`);
      throw new DatabaseUnavailable();
    }
  };
  return { ...tool, handler };
}
