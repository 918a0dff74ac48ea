/**
 * A connection whose answer went out while its request's body was still arriving is closed once
 * the answer is sent, unless the rest of the body arrives within a short grace. A route that
 * answers without reading the body (a 404 for a download link, a page's POST) otherwise left Node
 * reading and dropping the rest to keep the connection alive, for as long as a slow sender
 * trickled it (up to its requestTimeout, 300 s): a connection held for nothing. /api/mcp closes
 * its own early refusals (errors.md); this covers every route. Plain JavaScript: installed by
 * node-front.mjs before Next loads.
 *
 * Decided after the answer, not by a `Connection: close` in its head: under Next a small body that
 * has all arrived can still read as incomplete when the head is written (Next has not let the
 * parser finish it yet), and such a connection must stay reusable.
 */

import { onResponseHead } from "./response-head.mjs";

/** How long the rest of an unread body may take to arrive after the answer went out. */
export const UNREAD_BODY_GRACE_MS = 2_000;

function bodyOutstanding(req) {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * After the answer: the body arrived (Node drops it and keeps the connection), or the connection
 * ends. `socket` is taken when the head is written: by 'finish' Node may have let go of
 * req.socket already (it closes a connection answered early with `Connection: close` itself).
 */
function closeUnlessBodyArrives(req, socket) {
  if (req.complete || socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_GRACE_MS);
  const done = () => clearTimeout(timer);
  req.once("end", done);
  socket.once("close", done);
}

/** From now on, a response whose head goes out while its request's body is still arriving is watched (response-head.mjs). */
export function installUnreadBodyClose() {
  onResponseHead((response) => {
    const req = response.req;
    const socket = response.socket;
    if (req !== undefined && socket && bodyOutstanding(req)) response.once("finish", () => closeUnlessBodyArrives(req, socket));
  });
}
