/**
 * Hooks that run as a response's head is about to be written, for every server `http` creates
 * from now on (Next's included): the front's modules that act on a connection once its answer
 * starts (unread-body-close.mjs, connection-cap.mjs). Plain JavaScript: installed by
 * node-front.mjs before Next loads.
 *
 * A subclass of ServerResponse, not a wrapper per response: nothing is allocated per request. Node
 * writes every head through writeHead (flushHeaders, and the first write or end, call it too).
 */
const hooks = [];

/** `hook(response, writeHeadArgs)` runs before each response's head is written, once. */
export function onResponseHead(hook) {
  hooks.push(hook);
}

let installed = false;

export function installResponseHead(http) {
  if (installed) return;
  installed = true;
  class HookedResponse extends http.ServerResponse {
    writeHead(...args) {
      if (!this.headersSent) for (const hook of hooks) hook(this, args);
      return super.writeHead(...args);
    }
  }
  const createServer = http.createServer;
  http.createServer = function hookedCreateServer(...args) {
    if (args.length === 0 || typeof args[0] === "function") args.unshift({ ServerResponse: HookedResponse });
    else if (args[0] !== null && typeof args[0] === "object" && args[0].ServerResponse === undefined) args[0] = { ...args[0], ServerResponse: HookedResponse };
    return createServer.apply(this, args);
  };
}
