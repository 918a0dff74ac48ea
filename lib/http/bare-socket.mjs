/**
 * Answers on a bare socket (no response object: a CONNECT, a connection refused before its request
 * is read) and closes it. Plain JavaScript: the node front loads no TypeScript.
 */

/** How long the socket may stay after the answer, for a client that never closes its side. */
const LINGER_MS = 1000;

export function answerAndClose(socket, raw) {
  // A client gone before the answer is written must not be an unhandled 'error' (the process would exit).
  socket.on("error", () => undefined);
  socket.end(raw);
  // The server's sockets allow half-open connections: without this a client that keeps its side
  // open would hold the socket, with no timeout, for as long as it likes.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
