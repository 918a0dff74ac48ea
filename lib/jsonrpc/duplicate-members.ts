/**
 * Duplicate member names in a JSON text. JSON.parse keeps the last of duplicates silently, another
 * parser may keep the first: a body with two "method" or two "name" members could be routed by a
 * proxy as one request and run here as another, which is what the 2026-07-28 Mcp-Method and
 * Mcp-Name headers exist to prevent (basic/transports/streamable-http §Server Validation). I-JSON
 * (RFC 7493 §2.3) forbids duplicates outright.
 *
 * Every request pays for the check, so it compares two counts, with no strings made: the name
 * separators (":" outside strings) in the text, one per member written, and the members of what
 * JSON.parse made of it, where each duplicate left one fewer. Only when they differ is the text
 * scanned again to name the duplicate.
 */

/** Whether `value`, JSON.parse's result of `text`, lost members to duplicate names. Call it only on text JSON.parse accepted. */
export function hasDuplicateMembers(text: string, value: unknown): boolean {
  return nameSeparators(text) !== membersOf(value);
}

/** ":" outside strings: in well-formed JSON, exactly one per member. */
function nameSeparators(text: string): number {
  let count = 0;
  let colon = text.indexOf(":");
  let quote = text.indexOf('"');
  while (colon !== -1) {
    if (quote === -1 || colon < quote) {
      count++;
      colon = text.indexOf(":", colon + 1);
      continue;
    }
    // Skip the string that opens at `quote`: its end is the first quote not escaped.
    let end = text.indexOf('"', quote + 1);
    while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
    if (end === -1) return count;
    quote = text.indexOf('"', end + 1);
    if (colon < end) colon = text.indexOf(":", end + 1);
  }
  return count;
}

/** Whether the character at `i` follows an odd run of backslashes. */
function escapedAt(text: string, i: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(i - 1 - slashes) === 0x5c /* \ */) slashes++;
  return slashes % 2 === 1;
}

/** Members of every object in a parsed JSON value (its depth is bounded: parse-body.ts refuses deep text). */
function membersOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += membersOf(item);
    return count;
  }
  // Own keys only: an enumerable property someone added to Object.prototype must not count.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) count += 1 + membersOf(record[keys[i] as string]);
  return count;
}

/**
 * The first member name an object of `text` repeats, or undefined; names are compared decoded, so
 * "m\u0065thod" repeats "method". For the error message, once hasDuplicateMembers said there is one.
 */
export function duplicateMemberName(text: string): string | undefined {
  // One entry per open container: an object's names so far (a Set, so a hundred thousand members
  // stay linear), or null for an array.
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (!expectName) continue;
      expectName = false;
      const raw = text.slice(start + 1, i);
      const name = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
      const names = open[open.length - 1] as Set<string>;
      if (names.has(name)) return name;
      names.add(name);
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectName = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectName = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return undefined;
}
