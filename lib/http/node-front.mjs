/**
 * What runs in front of Next.js on plain node:http, before any request reaches it: under
 * `npm start` (scripts/start.mjs) and `npm run dev` (scripts/dev.mjs preloads
 * scripts/node-front-preload.mjs). Not on Vercel, which runs its own server (docs/edge.md).
 * A connection whose answer went out before its body arrived closes unless the rest comes soon
 * (unread-body-close).
 * The connection cap acts on connections, before any request is read; the gate is installed last
 * so that it wraps the request listener outermost: a refused request costs nothing more.
 */
import { installConnectionCap } from "./connection-cap.mjs";
import { installRequestGate } from "./request-gate.mjs";
import { installResponseHead } from "./response-head.mjs";
import { installTrustedHost } from "./trusted-host.mjs";
import { installUnreadBodyClose } from "./unread-body-close.mjs";

export function installNodeFront(http) {
  installResponseHead(http);
  installConnectionCap(http);
  installUnreadBodyClose();
  installTrustedHost(http);
  installRequestGate(http);
}
