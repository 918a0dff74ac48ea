/**
 * PostgreSQL's text and jsonb hold no NUL (22021; jsonb: "unsupported Unicode escape sequence"),
 * and jsonb no unpaired surrogate ("invalid input syntax for type json"). A task's outcome is
 * stored whatever its handler returned: a refusal that quotes the caller's argument key "a\u0000b"
 * could not be written, so its task stayed `working` until its lease ran out and then read as
 * killed (outside probe, 2026-11-29). Such characters are stored as U+FFFD, the replacement
 * character, as a decoder writes any character it cannot keep.
 */

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storableText(text: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE, "\ufffd") : text;
}

function storableValue(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableValue(item)]));
  }
  return value;
}

/**
 * `value` as jsonb text. JSON.stringify writes a NUL as `\u0000` and an unpaired surrogate as
 * `\udXXX` (a pair stays raw), so the text says when the slower pass is needed; a false alarm (a
 * typed backslash before such letters) only costs that pass.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  return /\\u0000|\\ud[89a-f]/i.test(json) ? JSON.stringify(storableValue(value)) : json;
}
