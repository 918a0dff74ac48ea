import { McpError } from "../../jsonrpc";

/**
 * Opaque cursors for list methods (server/utilities/pagination). A cursor is the base64url of the
 * next offset, as `paginate` issues it; anything else is refused with -32602 as the spec asks for
 * invalid cursors.
 */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== "string" || cursor.length > 64) throw invalidCursor();
  // Node's base64url decoder skips foreign characters, padding and spare bits, so many strings
  // decode to one offset: only the exact text this server issues is a cursor (pagination: invalid
  // cursors SHOULD be -32602). No leading zeros, and never offset 0 (the first page takes none).
  const m = /^o:([1-9]\d{0,8})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const offset = m ? Number(m[1]) : undefined;
  if (offset === undefined || encodeCursor(offset) !== cursor) throw invalidCursor();
  return offset;
}

function invalidCursor(): McpError {
  return McpError.invalidParams("Invalid cursor");
}

/** A precomputed page of a list result. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  /** The list result built from this page, cached by whoever builds it. */
  result?: Record<string, unknown>;
}

export function paginate<T>(items: readonly T[], pageSize: number): Map<number, Page<T>> {
  const pages = new Map<number, Page<T>>();
  if (items.length === 0) pages.set(0, { items: [] });
  for (let offset = 0; offset < items.length; offset += pageSize) {
    const next = offset + pageSize;
    pages.set(offset, { items: items.slice(offset, next), ...(next < items.length ? { nextCursor: encodeCursor(next) } : {}) });
  }
  return pages;
}

export function pageAt<T>(pages: Map<number, Page<T>>, cursor: unknown): Page<T> {
  const page = pages.get(decodeCursor(cursor));
  if (!page) throw invalidCursor();
  return page;
}
