/**
 * A cap on the connections one client holds open while they wait for a request, in front of Next
 * under `npm start` and `npm run dev` (lib/http/node-front.mjs). Plain JavaScript: that front
 * loads no TypeScript.
 *
 * Why: the rate limits count requests, once a body has been read. A connection whose body arrives
 * a byte at a time holds some 100–150 KB until MCP_BODY_TIMEOUT_MS runs out, and an outside audit
 * held 15,000 of them from one host (2–2.8 GB). So past MCP_MAX_CONNECTIONS_PER_ADDRESS (default
 * 1,000; 0 turns the cap off) waiting connections of one client, its next connection is answered
 * 503 and closed before a byte of it is read.
 *
 * - A connection counts while it waits for a request to arrive whole: from connect, and again
 *   after each answer while it is kept alive, until the next request's headers and body are all
 *   in. Slow headers, slow bodies and idle keep-alive all count. A connection whose request has
 *   arrived does not while the app works on it, nor while it holds an event stream (GET,
 *   subscriptions/listen): many users behind one address (a NAT, an AI host's egress) each holding
 *   one are served answers, not holding bytes back, and the streams have their own cap per caller
 *   (MCP_MAX_STREAMS_PER_CALLER). It counts again from the moment any other answer starts: a
 *   client that does not read its answers holds the unsent bytes on the server as a slow sender
 *   holds a half body (outside probe, 2026-11-29: 4,000 unread 560 KB pages, 600 MB, none refused).
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
import { answerAndClose } from "./bare-socket.mjs";
import { onResponseHead } from "./response-head.mjs";
import { inRangeList, normalized, rangeListOf } from "../config/address-parse.mjs";
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, parseConnectionCap } from "../config/connection-cap-default.mjs";

const REFUSAL_BODY = "Service Unavailable: too many connections from your address are waiting; close some and try again\n";
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
    settings = {
      max: parseConnectionCap(max) ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
      trusted: rangeListOf((trusted ?? "").split(",").map((entry) => entry.trim())),
    };
  }
  return settings;
}

/**
 * Puts the cap in front of `server`'s own handling of a new connection: a refused socket never
 * reaches the HTTP parser, so nothing it sends is read as a request. Returns the waiting
 * connections per client key, for inspection.
 */
/**
 * Per counted socket, whatever server it is on: its key, whether it counts now, whether it has
 * closed, how many of its answers (other than event streams) have started and not ended, and how
 * to count it.
 */
const tracked = new WeakMap();

/** Whether an answer about to start is an event stream, by the content type its head will carry. */
function isEventStream(response, args) {
  let type = response.getHeader("content-type");
  const given = typeof args[1] === "string" ? args[2] : args[1];
  if (Array.isArray(given)) {
    const flat = given.flat();
    for (let i = 0; i + 1 < flat.length; i += 2) if (String(flat[i]).toLowerCase() === "content-type") type = flat[i + 1];
  } else if (given && typeof given === "object") {
    for (const name of Object.keys(given)) if (name.toLowerCase() === "content-type") type = given[name];
  }
  return String(type ?? "").toLowerCase().startsWith("text/event-stream");
}

// An answer other than an event stream starts: its connection counts again until its next request
// has arrived, so one the client does not read holds a place as long as it holds the bytes.
onResponseHead((response, args) => {
  const entry = response.socket ? tracked.get(response.socket) : undefined;
  if (!entry || entry.closed || isEventStream(response, args)) return;
  // Until this answer is done, no request's arrival uncounts the connection: its own may be noted
  // a tick after the head (a GET is complete a tick after its 'request'), and a client that reads
  // nothing may pipeline more requests behind it, each arriving while this one's bytes wait
  // (verification probe, 2026-11-29: 162 such connections held at a cap of 10).
  entry.unfinished += 1;
  response.once("close", () => (entry.unfinished -= 1));
  entry.count();
});

export function capConnections(server) {
  const waiting = new Map();
  const count = (entry) => {
    if (entry.waiting) return;
    entry.waiting = true;
    waiting.set(entry.key, (waiting.get(entry.key) ?? 0) + 1);
  };
  const uncount = (entry) => {
    if (!entry.waiting) return;
    entry.waiting = false;
    const left = (waiting.get(entry.key) ?? 1) - 1;
    if (left > 0) waiting.set(entry.key, left);
    else waiting.delete(entry.key);
  };

  const handlers = server.listeners("connection");
  server.removeAllListeners("connection");
  server.on("connection", function cappedConnection(socket) {
    const key = admittedKey(waiting, socket);
    if (key === false) return answerAndClose(socket, RAW_503);
    if (key !== undefined) {
      const entry = { key, waiting: false, closed: false, unfinished: 0, count: () => count(entry) };
      count(entry);
      tracked.set(socket, entry);
      socket.once("close", () => {
        entry.closed = true;
        uncount(entry);
      });
    }
    for (const handler of handlers) handler.call(this, socket);
  });

  // Before the app's listener: a request's arrival is noted whatever the app does with it.
  server.prependListener("request", (req, res) => {
    // Kept from now: by 'finish' Node may have detached the socket from the request (an answer
    // sent with Connection: close before its body was read, such as a 413), leaving req.socket null.
    const socket = req.socket;
    const entry = tracked.get(socket);
    if (!entry) return;
    // Once per request, though both of the ways below may say so; and never while an answer of the
    // connection is under way (the hook above counts it).
    let noted = false;
    const arrived = () => {
      if (noted) return;
      noted = true;
      if (entry.unfinished === 0) uncount(entry);
    };
    // Node marks a message complete once its last byte is parsed, read or not: at once for a
    // request without a body; a body the app reads ends with 'end'.
    if (req.complete) arrived();
    else {
      req.once("end", arrived);
      setImmediate(() => req.complete && arrived());
    }
    // Answered and kept alive: waiting again, for the next request. An answer that went out before
    // the body had all arrived (a 401, a 405) is followed by Node reading and dropping the rest,
    // whose 'end' uncounts: the recount comes after it.
    res.once("finish", () => {
      const waitingAgain = () => socket.destroyed || entry.closed || count(entry);
      // After the request's 'end', which Node emits once it has read, or dropped, what nobody read:
      // a GET no one reads ends only after its answer, and its 'end' (an arrival) used to uncount
      // the answered connection for good (outside probe: 4,000 unread answers held, none refused).
      if (req.readableEnded) waitingAgain();
      else req.once("end", waitingAgain);
    });
  });
  return waiting;
}

/** The key the socket counts under, undefined when it is not counted, false when it is refused. */
function admittedKey(waiting, socket) {
  const { max, trusted } = currentSettings();
  const address = socket.remoteAddress;
  if (max === 0 || !address) return undefined;
  const peer = normalized(address);
  if (inRangeList(trusted, peer)) return undefined;
  const key = addressIdentity(peer);
  return (waiting.get(key) ?? 0) >= max ? false : key;
}

/**
 * Caps the connections of every server made with `http.createServer` from now on (Next's: Next
 * 16's `next start` and `next dev` make theirs so; `https` and `new http.Server` are not wrapped).
 */
export function installConnectionCap(http) {
  const createServer = http.createServer;
  http.createServer = function cappedCreateServer(...args) {
    const server = createServer.apply(this, args);
    capConnections(server);
    return server;
  };
}
