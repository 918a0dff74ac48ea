/**
 * Prisma filters that match text literally. Prisma turns `contains`, `startsWith` and
 * insensitive `equals` into (I)LIKE patterns without escaping the value, so a client's `%` or `_`
 * would match anything and a trailing `\` is an invalid pattern in PostgreSQL (22025). Each value
 * goes through `likeLiteral` first: `\` is PostgreSQL's default LIKE escape character.
 */

/**
 * `value` as a LIKE pattern that matches exactly these characters, in NFC: stored text is NFC
 * (lib/worlds/single-line.ts `storedText`), and a search typed in another form must still find it.
 */
export function likeLiteral(value: string): string {
  return value.normalize("NFC").replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The field contains `value`, ignoring case. */
export const containsText = (value: string) => ({ contains: likeLiteral(value), mode: "insensitive" as const });

/** The field starts with `value`, ignoring case. */
export const startsWithText = (value: string) => ({ startsWith: likeLiteral(value), mode: "insensitive" as const });

/** The field starts with `value`, case as given (ids). */
export const startsWithExactly = (value: string) => ({ startsWith: likeLiteral(value) });

/** The field equals `value` ignoring case: an ILIKE without wildcards, so exactly that text. */
export const equalsText = (value: string) => ({ equals: likeLiteral(value), mode: "insensitive" as const });
