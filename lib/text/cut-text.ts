/**
 * The first `max` UTF-16 code units of `text`, or one fewer where the cut would split a surrogate
 * pair. Half a character is a lone surrogate, which UTF-8 cannot encode: strict JSON readers
 * refuse it and the rest turn it into U+FFFD, so an excerpt, or an error quoting what a client
 * sent, must end on a whole character (outside audit, 2026-11-28: an emoji cut in half).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
