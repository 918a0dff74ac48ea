/** A control character: C0 (tab and newlines included), DEL and C1. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Whether `text` may be stored and shown as one line of text: no control character and no lone
 * surrogate (JSON and percent-escapes can spell one, `\ud800` or `%ED%A0%80` decoded leniently;
 * UTF-8 has no form for it, RFC 8259 §8.2). PostgreSQL refuses a NUL in text outright (22021).
 */
export function isPlainText(text: string): boolean {
  return !CONTROL_CHARACTER.test(text) && text.isWellFormed();
}
