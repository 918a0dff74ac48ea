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
 */
import { hasMalformedPercentEncoding, MALFORMED_PATH_MESSAGE } from "./path-encoding.mjs";

/** The methods Next.js dispatches to a route file's exports (next/dist/server/web/http.js). */
export const SERVED_METHODS = Object.freeze(["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"]);

const SERVED = new Set(SERVED_METHODS);

const NOT_IMPLEMENTED = "Not Implemented: this server does not support the request method\n";

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

/** Whether the gate answered `req` (then the caller must not). */
function refused(req, res) {
  if (!SERVED.has(req.method)) {
    answer(res, 501, NOT_IMPLEMENTED);
    return true;
  }
  if (hasMalformedPercentEncoding(req.url.split("?", 1)[0])) {
    answer(res, 400, MALFORMED_PATH_MESSAGE);
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
        if (refused(req, res)) return undefined;
        return listener.call(this, req, res);
      };
    }
    const server = createServer.apply(this, args);
    // CONNECT (RFC 9110 §9.3.6) asks for a tunnel; this server is no proxy.
    server.on("connect", (_req, socket) => socket.end(RAW_501));
    return server;
  };
}
