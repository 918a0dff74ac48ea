/**
 * A cap on the connections one client holds open at once, in front of Next under `npm start` and
 * `npm run dev` (lib/http/node-front.mjs). Plain JavaScript: that front loads no TypeScript.
 *
 * Why: the rate limits count requests, once a body has been read. A connection whose body arrives
 * a byte at a time holds some 100–150 KB until MCP_BODY_TIMEOUT_MS runs out, and an outside audit
 * held 15,000 of them from one host (2–2.8 GB). Past MCP_MAX_CONNECTIONS_PER_ADDRESS (default
 * 1,000; 0 turns the cap off) a new connection from that client is answered 503 and closed before
 * a byte of it is read.
 *
 * - A client is its socket's address as the anonymous budgets count it (address-identity.mjs): an
 *   IPv6 one by its /64, which one end site holds whole.
 * - A proxy listed in MCP_TRUSTED_PROXIES is not capped: it carries many clients' connections and
 *   is expected to limit them itself (docs/edge.md).
 * - Vercel runs its own server, so none of this runs there; its edge holds the connections.
 *
 * The settings are read from the environment as connections arrive, not when this is installed:
 * `next start` loads the .env files after the server is made.
 */
import { addressIdentity } from "./address-identity.mjs";
import { inRangeList, normalized, rangeListOf } from "../config/address-parse.mjs";
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from "../config/connection-cap-default.mjs";


/** How long a refused socket may stay after its answer, for a client that never closes its side. */
const REFUSED_LINGER_MS = 1000;

const REFUSAL_BODY = "Service Unavailable: too many connections from your address are open; close some and try again\n";
/** Written on the bare socket: no request has been read, so there is no response object. */
const RAW_503 = [
  "HTTP/1.1 503 Service Unavailable",
  "content-type: text/plain; charset=utf-8",
  `content-length: ${Buffer.byteLength(REFUSAL_BODY)}`,
  "cache-control: no-store",
  "retry-after: 5",
  "connection: close",
  "",
  REFUSAL_BODY,
].join("\r\n");

let seen = { max: undefined, trusted: undefined };
let settings = { max: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, trusted: rangeListOf([]) };

/** The cap and the trusted proxies, parsed again only when the environment changed. */
function currentSettings() {
  const max = process.env.MCP_MAX_CONNECTIONS_PER_ADDRESS;
  const trusted = process.env.MCP_TRUSTED_PROXIES;
  if (max !== seen.max || trusted !== seen.trusted) {
    seen = { max, trusted };
    // A malformed value keeps the default here; env.ts refuses it when the app starts.
    const parsed = max && /^\d{1,7}$/.test(max.trim()) ? Number(max) : DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    settings = { max: parsed, trusted: rangeListOf((trusted ?? "").split(",").map((entry) => entry.trim())) };
  }
  return settings;
}

/**
 * Puts the cap in front of `server`'s own handling of a new connection: a refused socket never
 * reaches the HTTP parser, so nothing it sends is read as a request.
 */
export function capConnections(server) {
  const open = new Map();
  const handlers = server.listeners("connection");
  server.removeAllListeners("connection");
  server.on("connection", function cappedConnection(socket) {
    const key = admittedKey(open, socket);
    if (key === false) return refuse(socket);
    if (key !== undefined) {
      open.set(key, (open.get(key) ?? 0) + 1);
      socket.once("close", () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      });
    }
    for (const handler of handlers) handler.call(this, socket);
  });
  return open;
}

/** The key the socket counts under, undefined when it is not counted, false when it is refused. */
function admittedKey(open, socket) {
  const { max, trusted } = currentSettings();
  const address = socket.remoteAddress;
  if (max === 0 || !address) return undefined;
  const peer = normalized(address);
  if (inRangeList(trusted, peer)) return undefined;
  const key = addressIdentity(peer);
  return (open.get(key) ?? 0) >= max ? false : key;
}

function refuse(socket) {
  // A client gone before the answer is written must not be an unhandled 'error' (the process would exit).
  socket.on("error", () => undefined);
  socket.end(RAW_503);
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}

/** Caps the connections of every server `http` creates from now on (Next's included). */
export function installConnectionCap(http) {
  const createServer = http.createServer;
  http.createServer = function cappedCreateServer(...args) {
    const server = createServer.apply(this, args);
    capConnections(server);
    return server;
  };
}
