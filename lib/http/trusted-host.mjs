/**
 * What `npm start` (scripts/start.mjs) knows about each request that the web Request Next builds
 * cannot tell: the socket's address, and every Authorization header it carried. Plain JavaScript
 * because start.mjs runs before Next and loads no TypeScript; the app reads the same facts through
 * `trustedPeerHeader()` (lib/http/client-address.ts).
 *
 * - The peer address travels in a request header whose name is random per process, so no client
 *   can send it (a client-sent copy under that name is overwritten anyway). Under a host that did
 *   not install this, `trustedPeerHeader()` is undefined and no such header is believed.
 * - Node keeps only the first of duplicate Authorization headers in `req.headers` (it discards
 *   the rest), so "valid, garbage" would authenticate with the valid one. Here duplicates are
 *   joined as the Fetch Headers object joins them ("a, b"), which is not one well-formed
 *   `Bearer <token>`: the resource server answers 400 invalid_request.
 */
import { randomBytes } from "node:crypto";

const KEY = Symbol.for("worldcrafter.trusted-host");

/** Every value of one header, in order, from node's raw header list. */
function valuesOf(rawHeaders, name) {
  const out = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) out.push(rawHeaders[i + 1]);
  return out;
}

/** Wraps the request listener of every server `http` creates from now on (Next's included). */
export function installTrustedHost(http) {
  const peerHeader = `x-worldcrafter-peer-${randomBytes(12).toString("hex")}`;
  globalThis[KEY] = { peerHeader };
  const createServer = http.createServer;
  http.createServer = function wrappedCreateServer(...args) {
    const at = args.findIndex((a) => typeof a === "function");
    if (at >= 0) {
      const listener = args[at];
      args[at] = function trustedListener(req, res) {
        req.headers[peerHeader] = req.socket.remoteAddress ?? "";
        const authorization = valuesOf(req.rawHeaders, "authorization");
        if (authorization.length > 1) req.headers.authorization = authorization.join(", ");
        return listener.call(this, req, res);
      };
    }
    return createServer.apply(this, args);
  };
}

/** The header carrying the socket's address, when the host installed it; else undefined. */
export function trustedPeerHeader() {
  return globalThis[KEY]?.peerHeader;
}
