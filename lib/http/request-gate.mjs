/**
 * Answers, before Next.js sees it, a request Next would answer with a 500 while building it.
 * Plain JavaScript because scripts/start.mjs runs before Next and loads no TypeScript.
 *
 * - A method no route here can serve: 501 Not Implemented, the answer for a method the server
 *   does not support for any resource (RFC 9110 §9.1, §15.6.2). Next dispatches seven methods to
 *   a route's exports and builds a web Request for every other one first: undici refuses TRACE,
 *   TRACK and CONNECT outright ("'TRACE' HTTP method is unsupported."), a 500 with a stack in the
 *   log; others (PROPFIND, QUERY…) reached a route as 400 and a page as a 200 render. CONNECT
 *   never reaches a request listener: node emits it as a "connect" event and, unanswered, drops
 *   the connection.
 * - A path whose percent-escapes do not decode: 400, whatever the method. proxy.ts answers it
 *   too, where this gate does not run, but only for requests without a body (see there).
 * - A transfer coding other than chunked alone ("gzip, chunked"): 501 (RFC 9112 §6.1). Node
 *   undoes the chunked framing and passes the rest on as if it were plain, so a proxy that
 *   honours the gzip and this server would read different bytes.
 * - A request-target other than a path (RFC 9112 §3.2, request-target.mjs): `OPTIONS *` is
 *   answered here for the server as a whole (204 with Allow), `*` with any other method and a
 *   target of no form is 400 (Next failed to build its URL: a 500). An absolute-form target
 *   (`http://host/path`) is taken as its path, with Host its authority, as §3.2.2 requires (Next
 *   answered a 308 to the same URL).
 * - More than one Host line: 400 (RFC 9112 §3.2, a MUST). Node keeps the first; a proxy in front
 *   that kept the last would route by another host than the one this server builds URLs from.
 * - A header section with as many lines as Node keeps: 431. Node 20 keeps 1,000 (2,000 names
 *   and values: server.maxHeadersCount, when set, counts lines) and drops the rest without a word,
 *   so a second Authorization past them would go unseen (lib/http/trusted-host.mjs refuses two),
 *   and so would an Mcp-Method. Node 24 answers such a request 431 itself.
 * And what it lets through reaches the route without the two headers Next would answer by itself
 * on a route handler's path (framework-headers.mjs).
 */
import { answerAndClose } from "./bare-socket.mjs";
import { dropFrameworkHeaders } from "./framework-headers.mjs";
import { hasMalformedPercentEncoding, MALFORMED_PATH_MESSAGE } from "./path-encoding.mjs";
import { requestTargetOf } from "./request-target.mjs";
import { admitPipelined } from "./pipeline-depth.mjs";

/** The methods Next.js dispatches to a route file's exports (next/dist/server/web/http.js). */
export const SERVED_METHODS = Object.freeze(["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"]);

const SERVED = new Set(SERVED_METHODS);

const NOT_IMPLEMENTED = "Not Implemented: this server does not support the request method\n";
const CODING_NOT_IMPLEMENTED = "Not Implemented: the only transfer coding this server reads is chunked\n";
const TOO_MANY_HEADERS = "Request Header Fields Too Large: too many header lines\n";
const ASTERISK_NOT_OPTIONS = "Bad Request: the request target * is for OPTIONS only\n";
const BAD_TARGET = "Bad Request: the request target must be a path, an absolute http(s) URL, or * for OPTIONS\n";
const HOSTS = "Bad Request: more than one Host header\n";
const ALLOW = SERVED_METHODS.join(", ");

/** Names and values Node 20's parser keeps when server.maxHeadersCount is unset (its MAX_HEADER_PAIRS). */
const NODE_MAX_HEADER_ENTRIES = 2000;

/**
 * `Connection: close`: a refused request's body is never read, and its unread rest would be taken
 * for the next request on a kept-alive connection (RFC 9112 §9.3).
 */
function headersFor(body) {
  return { "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store", connection: "close" };
}

/** The 501 written on a bare socket (a CONNECT has no response object). */
const RAW_501 = `HTTP/1.1 501 Not Implemented\r\n${Object.entries(headersFor(NOT_IMPLEMENTED)).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${NOT_IMPLEMENTED}`;

function answer(res, status, body) {
  res.writeHead(status, headersFor(body));
  res.end(body);
}

/** Whether Node may have dropped header lines of `req`: it kept as many as `server` keeps at most (0: no limit). */
function headersMayBeCut(server, req) {
  const entries = typeof server?.maxHeadersCount === "number" ? server.maxHeadersCount * 2 : NODE_MAX_HEADER_ENTRIES;
  return entries > 0 && req.rawHeaders.length >= entries;
}

/** Whether `rawHeaders` has more than one Host line (a loop over names: this runs on every request). */
function hostRepeated(rawHeaders) {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/**
 * A target that is not a path: an absolute-form one is turned into the path and Host it stands for
 * (false: the request goes on); `*` and anything else are answered here (true).
 */
function answeredTarget(req, res) {
  const target = requestTargetOf(req.url);
  switch (target.form) {
    case "origin":
      return false;
    case "absolute":
      req.url = target.path;
      req.headers.host = target.host;
      return false;
    case "asterisk":
      if (req.method !== "OPTIONS") break;
      // RFC 9110 §9.3.7: about the server itself. No content, so no Content-Length (§8.6).
      res.writeHead(204, { allow: ALLOW, "cache-control": "no-store" });
      res.end();
      return true;
    default:
      answer(res, 400, BAD_TARGET);
      return true;
  }
  answer(res, 400, ASTERISK_NOT_OPTIONS);
  return true;
}

/** Whether the gate answered `req` (then the caller must not). */
function refused(server, req, res) {
  if (!SERVED.has(req.method)) {
    answer(res, 501, NOT_IMPLEMENTED);
    return true;
  }
  if (hostRepeated(req.rawHeaders)) {
    answer(res, 400, HOSTS);
    return true;
  }
  if (answeredTarget(req, res)) return true;
  if (hasMalformedPercentEncoding(req.url.split("?", 1)[0])) {
    answer(res, 400, MALFORMED_PATH_MESSAGE);
    return true;
  }
  const coding = req.headers["transfer-encoding"];
  if (coding !== undefined && coding.trim().toLowerCase() !== "chunked") {
    answer(res, 501, CODING_NOT_IMPLEMENTED);
    return true;
  }
  if (headersMayBeCut(server, req)) {
    answer(res, 431, TOO_MANY_HEADERS);
    return true;
  }
  return false;
}

/** Wraps the request listener of every server `http` creates from now on (Next's included). */
export function installRequestGate(http) {
  const createServer = http.createServer;
  http.createServer = function gatedCreateServer(...args) {
    const at = args.findIndex((a) => typeof a === "function");
    if (at >= 0) {
      const listener = args[at];
      args[at] = function gatedListener(req, res) {
        if (!admitPipelined(req, res) || refused(this, req, res)) return undefined;
        // After the refusals: an absolute-form target has become its path by now.
        dropFrameworkHeaders(req.url, req.headers);
        return listener.call(this, req, res);
      };
    }
    const server = createServer.apply(this, args);
    // CONNECT (RFC 9110 §9.3.6) asks for a tunnel; this server is no proxy.
    server.on("connect", (_req, socket) => answerAndClose(socket, RAW_501));
    return server;
  };
}
