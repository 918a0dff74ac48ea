#!/usr/bin/env node
/**
 * Throughput/latency/CPU benchmark of the MCP endpoint against the framework's ceiling.
 *
 *   npm run bench                         # defaults: 5 rounds x 4 s per cell, c = 1 and 32
 *   BENCH_SECONDS=2 BENCH_ROUNDS=3 npm run bench
 *   BENCH_CPU_PROF=1 BENCH_SYSTEMS=tools/call npm run bench
 *                                         # server .cpuprofile in bench/.work/profiles (bench/profile-top.mjs)
 *   BENCH_SYSTEMS='ceiling,*pg' BENCH_SECONDS=1 BENCH_ROUNDS=1 npm run bench
 *                                         # a quick look at PostgreSQL alone (`*` matches any text)
 *   BENCH_SYSTEMS='tools/call*,ceiling+limiter*,redis:limiter' npm run bench
 *                                         # the rate limiter's cost: tools/call with limits off,
 *                                         # in memory and in Redis (BENCH_REDIS_URL), and its floors
 *   BENCH_SYSTEMS='tools/*,mcp-handler*' npm run bench
 *                                         # ours against Vercel's mcp-handler
 *   BENCH_SYSTEMS='ceiling,node:http*,cold-start' npm run bench
 *                                         # the core on plain node:http; cold start, memory and
 *                                         # the first data tool call after a cold start
 *   BENCH_SYSTEMS='ceiling*,tools/*,node20:*' npm run bench
 *                                         # Node 24 against the machine's Node (BENCH_NODE,
 *                                         # BENCH_SECONDARY: bench/runtime.mjs)
 *   BENCH_SYSTEMS='ceiling,redis-trips,idle-streams' npm run bench
 *                                         # Redis commands per request kind (MONITOR); 10,000
 *                                         # idle streams on one instance (BENCH_STREAMS,
 *                                         # BENCH_STREAM_PING_MS, BENCH_STREAM_HOLD_SECONDS;
 *                                         # BENCH_REDIS_TRIP_REQUESTS per kind)
 *   BENCH_NODE_FLAGS='--log-deopt --logfile=/tmp/v8-%p.log' BENCH_SYSTEMS=tools/call npm run bench
 *                                         # extra Node/V8 flags for every measured server
 *   BENCH_NOTE='loaded machine' npm run bench
 *                                         # a line in bold at the top of RESULTS.md
 *
 * Where things are (this file is the runner's entry: it prepares, times, reports and cleans up):
 *   config.mjs              the environment variables above, read once; shared names (host, routes)
 *   servers/                the systems it starts: catalog.mjs (each kind of server, the servers
 *                           with their database and limiter, their environment), lifecycle.mjs
 *                           (build check, spawn, readiness, sessions, stop), prepare.mjs (databases,
 *                           Redis, the mcp-handler app, starting what the rows need), auth-keys.mjs
 *   cells/                  what it measures: systems.mjs (the rows, their checks, BENCH_SYSTEMS),
 *                           client.mjs (requests, sessions, eras, decoding answers), http-cell.mjs
 *                           (one timed closed-loop cell and its CPU), proc.mjs (/proc CPU and RSS),
 *                           cold-start.mjs (cold start and memory)
 *   runner/                 rounds.mjs (warm-up, interleaved rounds with the order rotated),
 *                           skipped.mjs (rows that could not run), cleanup.mjs (undo on exit)
 *   report/                 RESULTS.md: stats.mjs (aggregates, spreads, formats), targets.mjs (the
 *                           targets table with its floors), tables.mjs (the other tables),
 *                           markdown.mjs (the whole document)
 *   closed-loop.mjs, databases.mjs, db-worker.mjs, redis.mjs, seed-data.mjs, mcp-handler-app.mjs,
 *   node-http-server.mjs    the load generator and the helpers the modules above use
 *
 * Runtime: Node 24 (what Vercel runs) by default. Started on another Node, this file re-runs itself
 * on tests/node24's Node (installed from the npm registry, the copy CI's Node 24 leg uses), so the
 * client, every server, the database workers and the cold starts run on it; the Node it was started
 * with answers the `node20:…` rows (ceiling, both floors, tools/list and tools/call in both eras) on
 * `main-machine`, a twin of main. BENCH_NODE=machine runs everything on the starting Node instead.
 *
 * Method (why it is built this way):
 * - `next start` production servers on 127.0.0.1, started as `node scripts/start.mjs` (what
 *   `npm start` runs: `next start` in that process with Node 22's stream buffers; not npm) so
 *   the spawned pid *is* the server; CPU is still summed over its whole process tree in case a
 *   future Next spawns workers. The main server answers the framework rows and the PostgreSQL
 *   rows (…/pg; DATABASE_URL = a fresh schema), so the ceiling and get_world/pg are measured on
 *   one process; a second one answers the PGlite rows (…/pglite; PGLITE_DATA_DIR = a temporary
 *   folder). Both databases are migrated and seeded with the same rows before any timing
 *   (bench/databases.mjs, bench/seed-data.mjs). Both run with rate limits off (MCP_RATE_LIMITS=0):
 *   no row spends a budget, and tools/call there is the "limits off" reference.
 * - The limiter's cost: two more servers, twins of the main one (same schema) with the limiter on,
 *   `limits-memory` (in process) and `limits-redis` (REDIS_URL = BENCH_REDIS_URL), budgets far above
 *   anything a run sends and failing closed, so a store problem is an error, never a silent pass.
 *   They answer tools/call+limits:memory and tools/call+limits:redis, the same request as tools/call.
 * - The "direct Prisma" rows (prisma:…) time the data-layer calls behind get_world and
 *   list_worlds without HTTP or MCP, in a child process per database (bench/db-worker.mjs).
 * - All systems are measured in interleaved rounds, with the order rotated every round, so drift
 *   and noise (thermal, neighbours, GC) hit all of them alike.
 * - Closed-loop load: `c` workers each keep exactly one request in flight over a keep-alive
 *   node:http Agent with maxSockets = c (lowest client overhead; connections opened before timing).
 * - Server CPU per request = Δ(utime+stime) from /proc/<pid>/stat over the cell / requests done.
 *   It is the number that does not depend on how much CPU the client steals on a small machine.
 * - Every response must be HTTP 200 with a JSON body that has `result` (and, for tools/call, no
 *   `isError`; get_world and list_worlds: the seeded records) and, from /api/mcp, the RateLimit-Limit
 *   its server's limiter sets (none with limits off); anything else is counted and flags the run.
 *   JSON answers are parsed and checked after their cell, not inside the timed loop: each is kept
 *   as its body minus this request's `"id":<n>` member (identical ones once, with a count), so every
 *   answer is still checked and the client's JSON.parse is not on the measured path.
 * - More MCP requests on the main server: server/discover (2026-07-28 only), create_world (a write
 *   on PostgreSQL, as a subject of its own so the read rows' data never changes), and
 *   draft_world_outline with `_meta.progressToken` (= the request id): the answer is an SSE stream
 *   of 10 notifications/progress then the result, read to its end and checked (10 progress events
 *   for this token, in order, then the result for this id). initialize (2025-11-25 only; its
 *   2026-07-28 counterpart is server/discover) opens a session per request, so it runs on a twin of
 *   the main server (`initialize`): the sessions it piles up (the store keeps 10,000, evicting the
 *   oldest) never evict the sessions the other rows use, nor sit in the main server's memory.
 * - Other stacks, each a process of its own so /proc gives its CPU: `mcp-handler` (Vercel's adapter
 *   on the v2 SDK) serving the same suggest_names tool in a minimal Next app the bench installs and
 *   builds in bench/.work/mcp-handler/<hash of versions and sources> (bench/mcp-handler-app.mjs;
 *   cached between runs; if the install or build fails, e.g. offline, its rows are skipped with the
 *   reason), and plain `node:http` (bench/node-http-server.mjs): `node-raw` answers the ceiling's
 *   fixed JSON, `node-core` mounts the same MCP core (worldcrafterEndpoint(), via jiti from lib/)
 *   with a minimal Request/Response adapter.
 * - Cold start and memory (after the rounds): fresh `next start` processes, each timed from spawn()
 *   to its first good answer — POST /api/ceiling for one kind, a 2026-07-28 tools/list on /api/mcp
 *   for the other — BENCH_COLD_STARTS of each (default 5, alternating), median reported. After the
 *   first answer each process is warmed up (the ceiling-only process with the ceiling, ours with
 *   tools/list and tools/call in both eras) and the VmRSS of its process tree is read.
 * - A server is started only if a selected system needs it; whatever is started (servers, database
 *   schema and folder, the Redis connection) is undone at the end or on SIGINT/SIGTERM.
 * - Floors: `ceiling+body` (the bare route reading its body) for tools/call, `ceiling+page` (the
 *   same, answering the exact bytes of a recorded tools/list page: /api/ceiling/tools-page) for
 *   tools/list, so each has a like-for-like ratio; `ceiling+statement/pg` (the same, then
 *   get_world's one statement, answering the row: /api/ceiling/statement) for get_world;
 *   `ceiling+limiter:memory` / `ceiling+limiter:redis` (the same, then one tools/call budget spent
 *   through the limits-… server's limiter: /api/ceiling/limiter) for the Redis rows. Floors are
 *   measured as routes, not added up from parts timed apart: a request that waits on I/O mid-way
 *   pays for waking up, which the parts alone never do. `redis:limiter` (cells/limiter-cell.mjs:
 *   the limiter's Redis call alone, no HTTP) stays as a row, what that call costs by itself.
 * - A/A control: `ceiling+body:twin`, ceiling+body under another name in the same rounds; its
 *   ratio to ceiling+body is the run's own spread when nothing differs (a line of the targets table, no goal).
 * - redis-trips (cells/redis-trips.mjs): Redis commands per request kind on `limits-redis`, counted
 *   with MONITOR, and round trips from Redis's own read count. idle-streams (cells/idle-streams.mjs): N idle GET / listen streams on `streams`.
 * - RESULTS.md opens with the issue's targets (measured value, goal, pass/miss), then the tables.
 */
import { fileURLToPath } from "node:url";
import { reexecOnNode24 } from "./runtime.mjs";

// Node 24 first (bench/runtime.mjs): on another Node this process only starts the real run there.
const code = await reexecOnNode24(fileURLToPath(import.meta.url));
if (code !== undefined) process.exit(code);
await import("./runner/main.mjs");
