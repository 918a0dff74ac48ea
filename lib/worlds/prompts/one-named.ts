import { McpError } from "../../mcp";

/** A record a prompt argument may name by id or by name. */
interface Named {
  id: string;
  name: string;
  createdAt: Date;
}

/** When a record was made, to the minute: enough to tell same-named records apart. */
const created = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * The one record among `matches` that the argument `argument` ("world", "character", …) named, or
 * undefined when none did. Names are not unique (import_world copies a world and its contents), so
 * several matches are the caller's invalid argument (-32602) listing their ids: picking one for
 * them would silently work on the wrong record.
 */
export function theOneNamed<T extends Named>(argument: string, given: string, matches: readonly T[]): T | undefined {
  if (matches.length <= 1) return matches[0];
  const choices = matches.map((m) => `${m.id} (created ${created(m.createdAt)})`).join(", ");
  throw McpError.invalidParams(
    `The ${argument} name ${JSON.stringify(given)} is ambiguous: ${matches.length} of yours share it: ${choices}. Pass the ${argument}'s id instead.`,
    [{ path: [argument], message: "Ambiguous name", ids: matches.map((m) => m.id) }],
  );
}

/** Completion values without repeats: same-named records would show the same string twice. */
export const uniqueNames = (rows: readonly { name: string }[]): string[] => [...new Set(rows.map((r) => r.name))];
