import type { RegistrationProblem } from "./input-limits";

/**
 * Registered redirect URIs written as the URIs they are. better-auth checks them with the WHATWG
 * URL parser, which repairs an http(s) URI as a browser would: `https:/good.example/cb`,
 * `https:good.example/cb`, `https:///good.example/cb` and `https:\\good.example\cb` all read as
 * `https://good.example/cb`. Stored verbatim, such a URI is compared by its text at authorize yet
 * sends the person to a host its text does not plainly name. RFC 3986 §3 writes an http(s) URI with
 * "//" and its authority, and RFC 9110 §4.2.1-4.2.2 gives that authority a non-empty host; §4.2.4
 * forbids userinfo (`https://good.example@evil.example/`).
 */

/** The redirect URI fields of a registration (RFC 7591 §2; post_logout_redirect_uris is OpenID's). */
const REDIRECT_URI_FIELDS = ["redirect_uris", "post_logout_redirect_uris"] as const;

const HTTP_SCHEME = /^https?:/i;
/** "//", an authority that is a host (and port) only, then path, query and fragment, no backslash. */
const HTTP_URI = /^https?:\/\/[^/?#\\@]+(?:[/?#][^\\]*)?$/i;

/**
 * RFC 3986 §2: a URI is ASCII letters, digits, the unreserved and reserved marks and %XX escapes.
 * The URL parser repaired the rest too, so the code went to another string than the one registered:
 * `https://example.com/c b` to `…/c%20b`, `https://evil%2ecom/cb` to `https://evil.com/cb` (outside
 * probe, 2026-11-29). An escape in the host (§3.2.2 allows one) is refused as well: it only ever
 * spells a host that can be written plainly.
 */
const URI_TEXT = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const ESCAPED_HOST = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*%/;
/**
 * A "." or ".." path segment, plain or escaped (RFC 3986 §5.2.4 removes them): the parser sent the
 * code to `https://example.com/cb` for `https://example.com/a/%2e%2e/cb` (outside probe, 2026-11-29).
 */
const DOT_SEGMENT = /^[^?#]*?(?:^|\/)(?:\.|%2e){1,2}(?:[/?#]|$)/i;
const pathOf = (uri: string): string => uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/[^/?#]*)?/, "");

/** The first redirect URI of `body` that is not a URI's text (any scheme), or an http(s) one not in the form above, as RFC 7591 §3.2.2's invalid_redirect_uri; undefined when there is none. */
export function redirectUriFormProblem(body: Readonly<Record<string, unknown>>): RegistrationProblem | undefined {
  for (const field of REDIRECT_URI_FIELDS) {
    const uris = body[field];
    if (!Array.isArray(uris)) continue;
    if (uris.some((uri) => typeof uri === "string" && (!URI_TEXT.test(uri) || ESCAPED_HOST.test(uri) || DOT_SEGMENT.test(pathOf(uri))))) {
      return { error: "invalid_redirect_uri", error_description: `an entry of ${field} is not a URI as RFC 3986 §2 writes one: only ASCII letters, digits, - . _ ~ : / ? # [ ] @ ! $ & ' ( ) * + , ; = and %XX escapes, no escape in the host and no "." or ".." path segment` };
    }
    if (uris.some((uri) => typeof uri === "string" && HTTP_SCHEME.test(uri) && !HTTP_URI.test(uri))) {
      return { error: "invalid_redirect_uri", error_description: `an http or https entry of ${field} must be written scheme://host/path, without userinfo or backslashes (RFC 3986 §3, RFC 9110 §4.2)` };
    }
  }
  return undefined;
}
