/**
 * A cap on the requests one connection has in flight at once (HTTP/1.1 pipelining, RFC 9112 §9.3.2),
 * in front of Next under `npm start` and `npm run dev` (lib/http/request-gate.mjs). Plain
 * JavaScript: that front loads no TypeScript.
 *
 * Node parses every request a connection has sent and hands each to the app at once, while their
 * answers wait their turn. 3 MB of pipelined `GET /api/health` in one write became 20,000 requests
 * running together: 2 GB of memory, and the server deaf to everyone else for half a minute (outside
 * probe, 2026-11-29). The connection cap (connection-cap.mjs) counts connections, not requests
 * within one. Clients pipeline a few requests at most (browsers and fetch not at all), so a
 * connection that has more than MAX_PIPELINED in flight is closed: its answers cannot go out of
 * order, and the ones still owed are dropped with it.
 */
export const MAX_PIPELINED = 16;

const inFlight = new WeakMap();

/**
 * Notes `req` on its connection; false (the connection destroyed) when that makes more than
 * MAX_PIPELINED in flight on it. The count drops as each answer ends or its connection closes.
 */
export function admitPipelined(req, res) {
  const socket = req.socket;
  if (!socket) return true;
  const depth = (inFlight.get(socket) ?? 0) + 1;
  if (depth > MAX_PIPELINED) {
    socket.destroy();
    return false;
  }
  inFlight.set(socket, depth);
  res.once("close", () => inFlight.set(socket, Math.max(0, (inFlight.get(socket) ?? 1) - 1)));
  return true;
}
