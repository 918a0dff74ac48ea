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
 * - MCP's own headers (MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Mcp-Param-*)
 *   each carry one value, and Node, like Fetch, joins repeated lines with ", ". Two lines "us"
 *   and "eu" then read as the one value "us, eu", which a body argument "us, eu" matches, while a
 *   gateway routing on either line acts on another value than the server runs (2026-07-28
 *   basic/transports §server validation). The names of such headers that came on more than one
 *   line travel in a second per-process header (`repeatedHeadersOf`), for the checks to refuse.
 */
import { randomBytes } from "node:crypto";

const KEY = Symbol.for("worldcrafter.trusted-host");

const REPEATED_KEY = Symbol.for("worldcrafter.repeated-header");

/**
 * A name no client can know, made once per process. Kept on globalThis, not in this module: Next
 * bundles its own copy of this file into the app, beside the one start.mjs loaded, and both must
 * agree (the node adapter sets the header too, without installing the front).
 */
function repeatedHeaderName() {
  return (globalThis[REPEATED_KEY] ??= `x-worldcrafter-repeated-${randomBytes(12).toString("hex")}`);
}

/** Every value of one header, in order, from node's raw header list. */
function valuesOf(rawHeaders, name) {
  const out = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) out.push(rawHeaders[i + 1]);
  return out;
}

/** The lower-cased names of `mcp-*` headers sent on more than one line, joined with ","; "" when none. */
export function repeatedMcpHeaders(rawHeaders) {
  let seen;
  let repeated = "";
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    // Most requests carry no mcp-* line past the first few; a char test keeps this loop cheap.
    if (name.length < 5 || (name.charCodeAt(0) | 0x20) !== 0x6d /* m */) continue;
    const lower = name.toLowerCase();
    if (!lower.startsWith("mcp-")) continue;
    seen ??= new Set();
    if (!seen.has(lower)) seen.add(lower);
    else if (!`,${repeated},`.includes(`,${lower},`)) repeated = repeated ? `${repeated},${lower}` : lower;
  }
  return repeated;
}

/** Puts `repeatedMcpHeaders` in `headers` under the per-process name (and removes any client copy). */
export function markRepeatedHeaders(headers, rawHeaders) {
  const repeated = repeatedMcpHeaders(rawHeaders);
  const name = repeatedHeaderName();
  if (repeated) headers[name] = repeated;
  else if (name in headers) delete headers[name];
}

/** The header naming repeated `mcp-*` header lines (see repeatedMcpHeaders). */
export function repeatedHeadersHeader() {
  return repeatedHeaderName();
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
        markRepeatedHeaders(req.headers, req.rawHeaders);
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
