import { ToolError } from "../../mcp";

/**
 * Domain problems a model can read and correct (an unknown id, a bad cursor, a parent in another
 * world). Thrown by the data layer; the MCP core turns any error a tool throws into an
 * `isError: true` result carrying the message's first line and its code (TOOL_ERROR_CODES).
 */
export class DomainError extends ToolError {
  override name = "DomainError";
}

export class NotFoundError extends DomainError {
  override name = "NotFoundError";
  constructor(kind: "World" | "Character" | "Location", id: string) {
    super(`${kind} ${JSON.stringify(id)} was not found. Use list_worlds${kind === "World" ? "" : ` / list_${kind.toLowerCase()}s`} to see valid ids.`, "not_found");
  }
}

/** The database cannot be reached (down, restarting, connections cut): worth a retry, not a fix. */
export class DatabaseUnavailable extends ToolError {
  override name = "DatabaseUnavailable";
  constructor() {
    super("The database is unavailable right now; try again in a moment.", "unavailable");
  }
}

/** Error codes of a lost connection: Node's sockets, PostgreSQL's shutdowns, Prisma's P1001/P1017. */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "57P01", "57P02", "57P03", "08006", "08001", "08003", "08004", "P1001", "P1002", "P1017"]);
const CONNECTION_TEXT = /ECONNREFUSED|ECONNRESET|Connection terminated|connection (?:is )?closed|Can't reach database|terminating connection/i;

/**
 * Whether `thrown` or anything in its cause chain (Prisma wraps the driver's error, which may wrap
 * the socket's; six links is deeper than any seen) satisfies `test`. A ToolError is a message the
 * app wrote on purpose, which may quote user text ("ECONNRESET" typed into an imported file): it is
 * never the driver's failure, so it matches nothing.
 */
function someCause(thrown: unknown, test: (link: { code?: unknown; message?: unknown }) => boolean): boolean {
  if (thrown instanceof ToolError) return false;
  for (let e: unknown = thrown, depth = 0; e && depth < 6; depth += 1) {
    if (typeof e !== "object") return false;
    if (test(e as { code?: unknown; message?: unknown })) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether `thrown` (or anything in its cause chain) says the database connection failed. */
export function isConnectionFailure(thrown: unknown): boolean {
  return someCause(thrown, ({ code, message }) => (typeof code === "string" && CONNECTION_CODES.has(code)) || (typeof message === "string" && CONNECTION_TEXT.test(message)));
}

/**
 * Whether `thrown` (or anything in its cause chain) is a foreign-key violation: Prisma's P2003 or
 * PostgreSQL's 23503. A row checked a moment before was deleted by another call (delete_world
 * racing a create_character): a not-found for the caller, not an internal error.
 */
export function isForeignKeyViolation(thrown: unknown): boolean {
  return someCause(thrown, ({ code }) => code === "P2003" || code === "23503");
}
