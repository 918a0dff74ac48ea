/**
 * What runs in front of Next.js on plain node:http, before any request reaches it: under
 * `npm start` (scripts/start.mjs) and `npm run dev` (scripts/dev.mjs preloads
 * scripts/node-front-preload.mjs). Not on Vercel, which runs its own server (docs/edge.md).
 * The gate is installed last so that it wraps outermost: a refused request costs nothing more.
 */
import { installRequestGate } from "./request-gate.mjs";
import { installTrustedHost } from "./trusted-host.mjs";

export function installNodeFront(http) {
  installTrustedHost(http);
  installRequestGate(http);
}
