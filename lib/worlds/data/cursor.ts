import { DomainError } from "./errors";
import { forbiddenTextIssue } from "../../mcp/runtime/validate";

/**
 * Keyset pagination over (createdAt desc, id desc): a cursor names the last row of the previous
 * page, so pages stay stable while rows are added. Opaque to clients (base64url JSON).
 */
export interface CursorKey {
  createdAt: Date;
  id: string;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.createdAt.toISOString(), key.id])).toString("base64url");
}

/**
 * Years 1 to 9999: what a stored row's time can be, and all PostgreSQL's timestamp reads back from
 * an ISO string (it has no year 0, so "0000-…" failed the query with 22008 rather than the cursor).
 */
const EARLIEST = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const storable = (time: Date): boolean => time.getTime() >= EARLIEST && time.getTime() <= LATEST;

export function decodeCursor(cursor: string | undefined): CursorKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === "string" && typeof parsed[1] === "string") {
      const key = { createdAt: new Date(parsed[0]), id: parsed[1] };
      // Node's base64url decoder skips foreign characters, padding and spare bits, and Date reads
      // many spellings of one time: only the exact text encodeCursor issues is a cursor. JSON can
      // spell a NUL or a lone surrogate in the id, which no stored id holds and PostgreSQL cannot
      // compare (22021, an internal error): refused here as in any other argument.
      if (storable(key.createdAt) && key.id.length <= 64 && forbiddenTextIssue(key.id) === undefined && encodeCursor(key) === cursor) return key;
    }
  } catch {
    /* falls through */
  }
  throw new DomainError("Invalid cursor: pass back the nextCursor of a previous page unchanged, or omit it.");
}

/**
 * The `where` fragment selecting rows after `key` in (createdAt, id) order: descending for pages
 * of lists (newest first), ascending for exports (the order things were made in).
 */
export function afterKey(key: CursorKey | undefined, direction: "asc" | "desc" = "desc") {
  if (!key) return {};
  const past = direction === "desc" ? "lt" : "gt";
  return {
    OR: [{ createdAt: { [past]: key.createdAt } }, { createdAt: key.createdAt, id: { [past]: key.id } }],
  };
}

export const PAGE_ORDER = [{ createdAt: "desc" as const }, { id: "desc" as const }];
export const CREATION_ORDER = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/** Fetch one row beyond the page to know whether another page exists. */
export function pageOf<T extends CursorKey>(rows: T[], limit: number): { items: T[]; nextCursor?: string } {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(items[items.length - 1]!) };
}
