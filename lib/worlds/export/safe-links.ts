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

// `](` + optional whitespace (a line break included) + optional `<` + the destination's first run.
const INLINE = /\]\((\s*<?)([^\s)>]*)/g;
// `]:` of a reference definition, same shape.
const REFERENCE = /\]:([ \t]*\n?[ \t]*<?)([^\s>]*)/g;

/**
 * Text that starts markup between angle brackets (CommonMark §6.5 autolinks, §6.6 raw HTML, §4.6
 * HTML blocks): `<` before a letter (a tag, an autolink's scheme, an email), `/` (a closing tag),
 * `!` (a comment, a declaration, CDATA) or `?` (a processing instruction).
 */
const ANGLE = /<(?=[A-Za-z/!?])/g;

/**
 * What may stay after such a `<`: an autolink to http(s) or mailto, an email autolink, or an inert
 * formatting tag with no attributes (`<b>`, `</em>`, `<br/>`), which prose may use and no renderer
 * can turn into a link or a script. Anything else (an `<a href>`, an `<img onerror>`, `<script>`,
 * `<svg>`, `<javascript:…>`, a comment) is defused: a host rendering the text as Markdown, with
 * raw HTML on (marked's default), would make it live (outside probe, 2026-11-29).
 */
const KEPT_AFTER_ANGLE = new RegExp(
  [
    String.raw`(?:https?|mailto):[^\s<>\x00-\x1f]*>`,
    String.raw`[A-Za-z0-9.!#$%&'*+/=?^_\`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>`,
    String.raw`\/?(?:b|i|u|s|em|strong|small|mark|sub|sup|code|kbd|del|ins|q|br|hr|p|blockquote|ul|ol|li|h[1-6])\s*\/?>`,
  ].map((alternative) => `(?:${alternative})`).join("|"),
  "iy",
);

function keptAfterAngle(text: string, from: number): boolean {
  KEPT_AFTER_ANGLE.lastIndex = from;
  return KEPT_AFTER_ANGLE.test(text);
}

/**
 * `text` with every link whose destination is not http(s), mailto or relative turned into plain
 * text — inline links, reference definitions, autolinks and links in raw HTML — and every other
 * active HTML (attributes, script-capable elements, comments) written with `&lt;`, which reads as
 * the `<` that was typed but is never structure.
 */
export function neutraliseLinks(text: string): string {
  return text
    .replace(INLINE, (whole, gap: string, destination: string) => (safeDestination(destination) ? whole : `]&#40;${gap}${destination}`))
    .replace(REFERENCE, (whole, gap: string, destination: string) => (safeDestination(destination) ? whole : `]&#58;${gap}${destination}`))
    .replace(ANGLE, (angle: string, offset: number, whole: string) => (keptAfterAngle(whole, offset + 1) ? angle : "&lt;"));
}
