/**
 * `node --import` this file to put lib/http/node-front.mjs in front of a server that is not
 * started by scripts/start.mjs: `npm run dev` (scripts/dev.mjs) does, so `next dev` refuses what
 * Next cannot build a Request for and knows the socket's address as `npm start` does. Next passes
 * it on to the server process it forks (through NODE_OPTIONS).
 */
import http from "node:http";
import { installNodeFront } from "../lib/http/node-front.mjs";

installNodeFront(http);
