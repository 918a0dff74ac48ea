#!/usr/bin/env node
/**
 * `npm start`: Next's production server, `next start` with the same arguments, in this process,
 * after two Node settings that Next offers no option for.
 *
 * Node 22 raised the default stream highWaterMark from 16 KiB to 64 KiB. Node 20, which this
 * project still supports, has 16. Next writes a route's Response into the node response and waits
 * for "drain" whenever a write returns false. So on Node 20:
 * - a 20 KB tools/list page costs one more event-loop turn and a third socket write (the chunked
 *   terminator alone) per answer;
 * - request bodies are read through the same small buffers.
 * The server takes its size when it is created, before next.config.ts or instrumentation.ts run,
 * so it has to be set here (bench/PROFILING.md, round 5). On Node 22 and later this changes
 * nothing, and Vercel runs its own server.
 *
 * It also puts lib/http/node-front.mjs in front of Next. What Next would answer 500 while building
 * the Request (a TRACE, a path whose percent-escapes do not decode) is answered first, 501 or 400
 * (lib/http/request-gate.mjs). And the app learns what only the node request knows
 * (lib/http/trusted-host.mjs): the client's socket address, for anonymous rate limits and for
 * whether forwarding headers are believed, and duplicate Authorization headers, which must be
 * refused rather than silently narrowed to the first.
 *
 * And it turns on Node's compile cache (Node 22.1 and later): the V8 code of every module compiled
 * is kept on disk and a later start of the same build reads it instead of parsing and compiling
 * again. A cold start of this app compiles some 3 MB of Next and of the build's chunks; with the
 * cache a restart reaches its first tools/list about a quarter sooner (bench/PROFILING.md, round
 * 29). Node checks each entry against its file's content, so a new build cannot run stale code.
 * - Where: node-compile-cache in the build's folder (.next, or NEXT_DIST_DIR), which `next build`
 *   empties: the chunks' names change with every build, so a cache kept elsewhere would grow by a
 *   build's worth (some 8 MB) each time. Not the shared temporary folder, Node's default: anyone
 *   who can write there could leave code for this server to run. No build there, no cache.
 * - When: Node writes it as the process exits.
 * - NODE_COMPILE_CACHE (another folder) and NODE_DISABLE_COMPILE_CACHE=1 still decide, as Node
 *   documents them; where the folder cannot be written Node goes on without.
 *
 * `next` is resolved from the working directory, so the benchmark starts its mcp-handler app
 * with the same setting.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import module, { createRequire } from "node:module";
import path from "node:path";
import { getDefaultHighWaterMark, setDefaultHighWaterMark } from "node:stream";
import { installNodeFront } from "../lib/http/node-front.mjs";

const STREAM_BUFFER_BYTES = 64 * 1024;

// Node 20 has no compile cache.
const buildDir = path.resolve(process.env.NEXT_DIST_DIR ?? ".next");
if (process.env.NODE_COMPILE_CACHE === undefined && existsSync(buildDir)) module.enableCompileCache?.(path.join(buildDir, "node-compile-cache"));

if (getDefaultHighWaterMark(false) < STREAM_BUFFER_BYTES) setDefaultHighWaterMark(false, STREAM_BUFFER_BYTES);

// Unsupported methods, the socket's address and duplicate Authorization headers (see there).
installNodeFront(http);

const require = createRequire(path.join(process.cwd(), "package.json"));
const nextBin = require.resolve("next/dist/bin/next");
// As if run as `next start <arguments>`: Next's CLI parses process.argv.
process.argv = [process.argv[0], nextBin, "start", ...process.argv.slice(2)];
require(nextBin);
