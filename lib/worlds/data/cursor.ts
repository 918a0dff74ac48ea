import { hash } from "node:crypto";
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

/**
 * What a cursor pages through: the list's name and every argument that selects its rows (owner,
 * world, filters; not the page size). A cursor carries a digest of it, so one issued for another
 * list, world, filter or user is refused instead of silently paging this list from another list's
 * row (outside probe, 2026-11-29: a list_characters cursor from world A skipped rows of world B).
 */
export type CursorScope = readonly [list: string, ...selectors: (string | undefined)[]];

const scopeTag = (scope: CursorScope): string => hash("sha256", JSON.stringify(scope), "base64url").slice(0, 16);

export function encodeCursor(key: CursorKey, scope: CursorScope): string {
  return Buffer.from(JSON.stringify([key.createdAt.toISOString(), key.id, scopeTag(scope)])).toString("base64url");
}

/**
 * Years 1 to 9999: what a stored row's time can be, and all PostgreSQL's timestamp reads back from
 * an ISO string (it has no year 0, so "0000-…" failed the query with 22008 rather than the cursor).
 */
const EARLIEST = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const storable = (time: Date): boolean => time.getTime() >= EARLIEST && time.getTime() <= LATEST;

/** The row a cursor names and the scope digest it carries, if it is exactly a cursor's text. */
function readCursor(cursor: string): { key: CursorKey; tag: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((part) => typeof part === "string")) return undefined;
    const [time, id, tag] = parsed as [string, string, string];
    const key = { createdAt: new Date(time), id };
    // Node's base64url decoder skips foreign characters, padding and spare bits, and Date reads
    // many spellings of one time: only the exact text encodeCursor issues is a cursor. JSON can
    // spell a NUL or a lone surrogate in the id, which no stored id holds and PostgreSQL cannot
    // compare (22021, an internal error): refused here as in any other argument.
    if (!storable(key.createdAt) || id.length > 64 || forbiddenTextIssue(id) !== undefined || !/^[A-Za-z0-9_-]{16}$/.test(tag)) return undefined;
    const exact = Buffer.from(JSON.stringify([key.createdAt.toISOString(), id, tag])).toString("base64url");
    return exact === cursor ? { key, tag } : undefined;
  } catch {
    return undefined;
  }
}

export function decodeCursor(cursor: string | undefined, scope: CursorScope): CursorKey | undefined {
  if (cursor === undefined) return undefined;
  const read = readCursor(cursor);
  if (!read) throw new DomainError("Invalid cursor: pass back the nextCursor of a previous page unchanged, or omit it.");
  if (read.tag !== scopeTag(scope)) {
    throw new DomainError(`Invalid cursor: it was issued for another list (another world, filter or user), not this ${scope[0]} list. Call again with the same arguments as the page it came from, or omit it.`);
  }
  return read.key;
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

/** A page of rows, and the cursor that would carry on after any of them (a page cut shorter). */
export interface RowPage<T extends CursorKey> {
  items: T[];
  nextCursor?: string;
  cursorAfter(row: T): string;
}

/** Fetch one row beyond the page to know whether another page exists. */
export function pageOf<T extends CursorKey>(rows: T[], limit: number, scope: CursorScope): RowPage<T> {
  const cursorAfter = (row: T) => encodeCursor(row, scope);
  if (rows.length <= limit) return { items: rows, cursorAfter };
  const items = rows.slice(0, limit);
  return { items, nextCursor: cursorAfter(items[items.length - 1]!), cursorAfter };
}
