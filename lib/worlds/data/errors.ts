import { ToolError } from "../../mcp";

/**
 * Domain problems a model can read and correct (an unknown id, a bad cursor, a parent in another
 * world). Thrown by the data layer; the MCP core turns any error a tool throws into an
 * `isError: true` result carrying the message's first line.
 */
export class DomainError extends ToolError {
  override name = "DomainError";
}

export class NotFoundError extends DomainError {
  override name = "NotFoundError";
  constructor(kind: "World" | "Character" | "Location", id: string) {
    super(`${kind} ${JSON.stringify(id)} was not found. Use list_worlds${kind === "World" ? "" : ` / list_${kind.toLowerCase()}s`} to see valid ids.`);
  }
}
