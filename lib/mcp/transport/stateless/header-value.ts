/**
 * Header values that mirror body fields (2026-07-28 basic/transports §request metadata headers).
 * A value that is not plain visible ASCII travels as `=?base64?<standard base64 of UTF-8>?=`;
 * anything without both the prefix and the suffix is a literal. Surrounding whitespace is not
 * part of the value.
 */
const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What a literal value may hold: visible ASCII, space and tab (RFC 9110 §5.5). Anything else must
 * come Base64-encoded, and a server MUST reject a value with invalid characters (2026-07-28
 * basic/transports §value encoding, §server validation). Node hands a raw byte 0x80–0xFF over as
 * the Latin-1 character, so "é" sent bare arrives as U+00E9 and is caught here.
 */
const LITERAL_INVALID = /[^\t\x20-\x7e]/;

/**
 * The decoded value, or undefined when the value is invalid: a literal with a character outside
 * visible ASCII, or a sentinel value that is not valid Base64 of valid UTF-8.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  const m = SENTINEL.exec(value);
  if (!m) return LITERAL_INVALID.test(value) ? undefined : value;
  const encoded = m[1] as string;
  // Strict: padding required, no stray characters (the conformance suite refuses both).
  if (!BASE64.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, "base64");
  // Canonical only: "eA==" and "eB==" (an unused bit set) both decode to "x", so two header texts
  // would name one value, and a filter matching the one could be passed with the other.
  if (bytes.toString("base64") !== encoded) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** How a tool argument is written in its Mcp-Param header: strings as is, integers in decimal, booleans as words. */
export function headerFormOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** Compare a decoded header with the body value; integers compare numerically ("42.0" equals 42). */
export function headerMatches(decoded: string, bodyValue: unknown): boolean {
  // Decimal only: "0x2A" or "4.2e1" are not how a client writes 42.
  if (typeof bodyValue === "number") return /^-?\d+(\.0+)?$/.test(decoded) && Number(decoded) === bodyValue;
  return decoded === headerFormOf(bodyValue);
}
