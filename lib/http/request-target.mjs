/**
 * The four forms of an HTTP/1.1 request-target (RFC 9112 §3.2), told apart from node's `req.url`,
 * which is the target exactly as sent. Plain JavaScript: the request gate (request-gate.mjs) runs
 * before Next and loads no TypeScript.
 *
 * - origin-form `/path?query`: what every route expects.
 * - asterisk-form `*`: only for OPTIONS, asking about the server as a whole (§3.2.4).
 * - absolute-form `http://host/path`: a server MUST accept it (§3.2.2), and then MUST ignore Host
 *   for the target's own authority. Next took the whole URL for a path and answered a 308 to it,
 *   a redirect to the same request.
 * - authority-form `host:port`: only for CONNECT, which never reaches a request listener.
 */

/** `scheme://`: RFC 3986 §3.1. */
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * What `target` is: `{ form: "origin" }`, `{ form: "asterisk" }`, `{ form: "absolute", path, host }`
 * (the origin-form and Host it stands for), or `{ form: "invalid" }` (anything else, and an
 * absolute-form target that is not http(s), has userinfo (RFC 9110 §4.2.4: to be treated as an
 * error) or whose authority does not parse).
 */
export function requestTargetOf(target) {
  if (target.charCodeAt(0) === 0x2f /* / */) return ORIGIN;
  if (target === "*") return ASTERISK;
  const scheme = ABSOLUTE.exec(target);
  if (!scheme) return INVALID;
  const name = scheme[0].slice(0, -3).toLowerCase();
  if (name !== "http" && name !== "https") return INVALID;
  const rest = target.slice(scheme[0].length);
  const cut = rest.search(/[/?#]/);
  const host = cut < 0 ? rest : rest.slice(0, cut);
  // A fragment is never part of a target (§3.2: origin-form is path and query only).
  if (host === "" || host.includes("@") || (cut >= 0 && rest[cut] === "#")) return INVALID;
  try {
    if (new URL(`${name}://${host}`).host === "") return INVALID;
  } catch {
    return INVALID;
  }
  const tail = cut < 0 ? "" : rest.slice(cut);
  return { form: "absolute", path: tail.startsWith("/") ? tail : `/${tail}`, host };
}

const ORIGIN = Object.freeze({ form: "origin" });
const ASTERISK = Object.freeze({ form: "asterisk" });
const INVALID = Object.freeze({ form: "invalid" });
