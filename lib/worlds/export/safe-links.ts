/**
 * Markdown links in user prose may only lead to http(s) or mailto (or stay relative): a
 * `[x](javascript:…)` written into a description would otherwise be a live script link in
 * whatever renders the export. A destination is judged on its start, before a renderer would
 * decode it — one with a colon or a character reference (`&#106;avascript:`) must name an allowed
 * scheme — and an unsafe link is defused by writing the `(` or `:` that makes it a link as a
 * character reference (`&#40;`, `&#58;`), which reads as the text that was typed but is never
 * structure (CommonMark §2.5, §6.3 inline links, §4.7 link reference definitions). Not a
 * backslash: before `]` it would pair with one the user typed (`[a\\]:` is a live definition).
 */

const ALLOWED = /^(?:https?:|mailto:)/i;

function safeDestination(destination: string): boolean {
  if (ALLOWED.test(destination)) return true;
  return !/[:&]/.test(destination.split(/[/?#]/, 1)[0] ?? "") && !destination.startsWith("//");
}

// `](` + optional whitespace (a line break included) + optional `<` + the destination's first run,
// which stops at any bracket: a run that went on through `[y](javascript:…)` judged it part of a
// relative destination and never looked at its own `](` (verification probe, 2026-11-29).
const INLINE = /\]\((\s*<?)([^\s()<>[\]]*)/g;
// `]:` of a reference definition, same shape; its line break may be CR LF or a lone CR
// (CommonMark §2.1), after which a definition's destination went unread.
const REFERENCE = /\]:([ \t]*(?:\r\n|\r|\n)?[ \t]*<?)([^\s<>[\]]*)/g;

/**
 * A `<` that may open markup (CommonMark §6.5 autolinks, §6.6 raw HTML, §4.6 HTML blocks): before
 * a letter (a tag, an autolink's scheme, an email), `/` (a closing tag), `!` (a comment, a
 * declaration, CDATA) or `?` (a processing instruction). Every one is written `&lt;`, with no
 * exception: an inert `<p>` kept as typed opened an HTML block, inside which a browser read a kept
 * "email autolink" `<img/src='x'/onerror=…//@x.com>` as an image with a handler (verification
 * probe, 2026-11-29). `&lt;` reads as the `<` that was typed and is never structure.
 */
const ANGLE = /<(?=[A-Za-z/!?])/g;

/**
 * `text` with every link whose destination is not http(s), mailto or relative turned into plain
 * text — inline links and reference definitions — and every `<` that could open an autolink or
 * raw HTML written `&lt;`.
 */
export function neutraliseLinks(text: string): string {
  return text
    .replace(INLINE, (whole, gap: string, destination: string) => (safeDestination(destination) ? whole : `]&#40;${gap}${destination}`))
    .replace(REFERENCE, (whole, gap: string, destination: string) => (safeDestination(destination) ? whole : `]&#58;${gap}${destination}`))
    .replace(ANGLE, "&lt;");
}
