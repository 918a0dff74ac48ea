/** RESULTS.md: the run's description, the targets table, then every section. */
import path from "node:path";
import { REDIS_LIMITER } from "../cells/limiter-cell.mjs";
import { CONFIG, directRowName, HOST, limiterRowName, ROOT, statementRowName } from "../config.mjs";
import { skipped } from "../runner/skipped.mjs";
import { CHARACTERS_PER_WORLD, LIST_ARGS, LOCATIONS_PER_WORLD, TARGET_WORLD_ID, WORLD_COUNT } from "../seed-data.mjs";
import { isOurs, LIMIT_BUDGETS, LIMIT_WINDOW_SECONDS, SERVERS } from "../servers/catalog.mjs";
import { SUBJECTS } from "../servers/auth-keys.mjs";
import { fmt } from "./stats.mjs";
import { SECONDARY_NODE } from "../runtime.mjs";
import { coldStartTable, firstDataCallTable, databaseTable, limiterLines, limiterTable, mcpHandlerTable, moreRequestsTable, nodeHttpTable, nodeVersionsTable, throughputTable } from "./tables.mjs";
import { targetLines, targetsTable } from "./targets.mjs";

export function renderMarkdown(rows, meta) {
  const lines = [];
  lines.push("# MCP endpoint benchmark");
  lines.push("");
  lines.push(`- Date: ${meta.date}`);
  lines.push(`- Node ${meta.machine.node} (client, servers, workers, cold starts)${SECONDARY_NODE ? `; the machine's Node ${SECONDARY_NODE.version} answers the \`${SECONDARY_NODE.prefix}…\` rows on \`main-machine\`, a twin of main` : ""}, Next.js ${meta.machine.next}, Linux ${meta.machine.kernel}`);
  if (meta.note) lines.push(`- **${meta.note}**`);
  lines.push(`- CPU: ${meta.machine.model}, ${meta.machine.cores} core(s) (client and server share them)`);
  if (meta.buildId) {
    const ours = meta.servers.filter((key) => (SERVERS[key].runtime ?? "next") === "next");
    const list = ours.map((key) => `\`${key}\``).join(", ");
    lines.push(`- Build: \`${CONFIG.distDir}\` (BUILD_ID ${meta.buildId}), \`next start\` on ${HOST} (server${ours.length > 1 ? "s" : ""} ${list}${meta.cold ? ", and the cold-start processes" : ""}), MCP_SESSION_MODE=stateful, MCP_LOG_REQUESTS=0${CONFIG.cpuProf ? ", **--cpu-prof on (numbers inflated)**" : ""}${CONFIG.nodeFlags.length > 0 ? `, **Node flags \`${CONFIG.nodeFlags.join(" ")}\`**` : ""}`);
    if (meta.servers.includes("node-core") || meta.servers.includes("node-raw")) {
      lines.push(`- \`node:http\` servers (bench/node-http-server.mjs, one process each): ${["node-raw", "node-core"].filter((k) => meta.servers.includes(k)).map((k) => `\`${k}\``).join(", ")}; node-core loads the core from the working tree's lib/ with jiti (not from the build), with main's settings`);
    }
    if (meta.mcpHandlerApp) {
      const app = meta.mcpHandlerApp;
      lines.push(`- mcp-handler app (server \`mcp-handler\`): ${Object.entries(app.versions).map(([pkg, v]) => `${pkg} ${v}`).join(", ")}; installed and built by the bench in \`${path.relative(ROOT, app.dir)}\`${app.cached ? " (cached from an earlier run)" : ""}`);
    }
    const off = meta.servers.filter((key) => isOurs(key) && !SERVERS[key].limiter);
    const limiting = meta.servers.filter((key) => SERVERS[key].limiter);
    if (off.length > 0) lines.push(`- Rate limits off (MCP_RATE_LIMITS=0) on ${off.map((key) => `\`${key}\``).join(", ")}`);
    if (limiting.length > 0) {
      const budgets = `budgets ${fmt(LIMIT_BUDGETS["tools/call"])} per ${LIMIT_WINDOW_SECONDS} s for tools/call, tools/list and the rest (never reached), MCP_RATE_LIMIT_FAILURE=closed`;
      lines.push(`- Rate limits on (MCP_RATE_LIMITS=1) on ${limiting.map((key) => `\`${key}\` (${SERVERS[key].limiter === "redis" ? "REDIS_URL" : "in process"})`).join(", ")}: ${budgets}`);
    }
  }
  if (meta.staleFiles.length > 0) {
    lines.push(`- **Stale build**: ${meta.staleFiles.length} file(s) under lib/ or app/ changed after it (e.g. ${meta.staleFiles.slice(0, 3).join(", ")})`);
  }
  for (const db of meta.databases) {
    const onIt = meta.servers.filter((key) => SERVERS[key].db === db.key).map((key) => `\`${key}\``);
    lines.push(`- ${db.label} (server${onIt.length > 1 ? "s" : ""} ${onIt.join(", ") || "none"}, …/${db.key} rows): ${db.description}`);
  }
  if (meta.redis) lines.push(`- Redis (server \`limits-redis\`, …limits:redis rows): ${meta.redis}`);
  if (meta.databases.length > 0) {
    const queries = Object.entries(meta.databases[0].queries).map(([query, fn]) => `prisma:${query} = \`${fn}\``);
    lines.push(`- Direct rows time lib/worlds/data/worlds.ts: ${queries.join(", ")}`);
    lines.push(`- Data in each database: ${WORLD_COUNT} worlds of the development subject, ${CHARACTERS_PER_WORLD} characters and ${LOCATIONS_PER_WORLD} locations each; get_world reads \`${TARGET_WORLD_ID}\`, list_worlds \`${JSON.stringify(LIST_ARGS)}\``);
  }
  lines.push(`- Machine load average (1 min): ${meta.loadavg} at start, ${meta.loadavgEnd} at the end — other work on the machine shows up as round-to-round spread`);
  if (meta.share) {
    const pct = (x) => `${fmt(x * 100)}%`;
    lines.push(
      `- Share of the machine's ${meta.machine.cores} cores during the timed rounds (/proc/stat): this bench's processes (client, servers, workers) ${pct(meta.share.ours)}, everything else ${pct(meta.share.others)} (PostgreSQL and Redis serving the bench included, and any other work on this shared machine), idle ${pct(meta.share.idle)}`,
    );
  }
  lines.push(`- Load: ${CONFIG.rounds} rounds x ${CONFIG.seconds} s per cell, systems interleaved (order rotated each round), ${CONFIG.warmupSeconds} s warm-up per cell before round 1`);
  lines.push("- Answers: every one is checked; JSON answers after their cell (kept as the body minus this request's `\"id\":n`, identical ones counted once), so the client's JSON.parse is not timed; SSE answers and header checks in the loop");
  if (meta.wallSeconds !== undefined) lines.push(`- Wall time of the whole run (install, seeding, start-up, warm-up, rounds, cold starts): ${fmt(meta.wallSeconds)} s`);
  lines.push("");
  const targets = targetsTable(rows, meta.cold);
  if (targets.length > 2) {
    lines.push("## Targets (issues 9 and 22)");
    lines.push("");
    lines.push(...targets);
    lines.push("");
    lines.push("measured = the aggregate ratio (requests ÷ wall time summed over rounds, or p50 over every request), and");
    lines.push("result = its verdict; per-round = the same ratio within each round (cold start, RSS: the i-th run of each");
    lines.push("kind), whose spread says how far to trust the verdict on this shared machine. The server-CPU view (req/s");
    lines.push("targets) is the reference's server CPU per request ÷ the row's: the req/s ratio if both servers were");
    lines.push("CPU-bound with the machine to themselves — it leaves out the load generator's own CPU (ours parses a");
    lines.push("bigger tools/list) and other work on the cores, so it is the steadier number here; the verdict stays the");
    lines.push("measured one.");
    lines.push("");
    lines.push("The floor is the same ratio for `ceiling+body`, the bare route plus reading its body as the endpoint does (`readBodyLimited`): the least");
    lines.push("any JSON-RPC endpoint on these route handlers must do, measured in the same rounds. get_world's floor is");
    lines.push(`\`${statementRowName("pg")}\` (\`POST /api/ceiling/statement\`): ceiling+body that then runs get_world's one statement`);
    lines.push("(`getWorldCard`, the same seeded world and owner) and answers the row as JSON — no token check, no MCP.");
    lines.push("Against the ceiling it is get_world's floor at every c; on the issue-22 line it is ceiling+statement's p50");
    lines.push(`÷ (ceiling+body p50 + \`${directRowName("get_world", "pg")}\` p50), the sum the goal was set against: a route that`);
    lines.push("waits on PostgreSQL mid-request pays for the wake-up and the cold caches after it, which the statement");
    lines.push("timed alone in a worker never does, so the sum understates any real request. The line \"÷ ceiling+statement");
    lines.push("p50\" is ours against that measured floor, for reading only (goal —: the issue's 1.2x was set against the sum,");
    lines.push("and against the higher measured floor it would be a looser goal under the same name). The Redis rows' floor");
    lines.push(`is \`${limiterRowName("redis")}\` ÷ \`${limiterRowName("memory")}\` (\`POST /api/ceiling/limiter\` on \`limits-redis\` and \`limits-memory\`:`);
    lines.push("ceiling+body that spends one tools/call budget through the limiter its server's configuration builds, then");
    lines.push("answers the ceiling's bytes), measured at every c; on their issue-22 line it is ceiling+limiter:redis's p50");
    lines.push(`÷ (ceiling+limiter:memory p50 + \`${REDIS_LIMITER}\` p50), \`${REDIS_LIMITER}\` being the limiter's one Redis call timed alone`);
    lines.push("(@upstash/ratelimit's sliding window over the same ioredis settings, no HTTP), still a row of its own. When");
    lines.push("the floor misses a goal, no endpoint built on these route handlers (and, for Redis, this limiter) could meet");
    lines.push("that goal on this machine, whatever its own code costs.");
    lines.push("");
  }
  if (skipped.length > 0) {
    lines.push("**Skipped rows:**");
    for (const s of skipped) lines.push(`- ${s.names.join(", ")}: ${s.reason.replace(/\|/g, "\\|")}`);
    lines.push("");
  }
  lines.push("## All rows");
  lines.push("");
  lines.push(...throughputTable(rows));
  lines.push("");
  const flagged = rows.filter((r) => r.errors > 0);
  if (flagged.length > 0) {
    lines.push("**This run had errors; its numbers are not valid.**");
    for (const r of flagged) lines.push(`- ${r.system} c=${r.concurrency}: ${r.errors} errors, first: \`${String(r.firstError).replace(/`/g, "'")}\``);
    lines.push("");
  }
  if (rows.some((r) => r.db)) {
    lines.push("## get_world and list_worlds against the ceiling");
    lines.push("");
    lines.push(...databaseTable(rows));
    lines.push("");
    const target = targetLines(rows);
    if (target.length > 0) lines.push(...target, "");
  }
  if (SECONDARY_NODE && rows.some((r) => r.nodePrefix === SECONDARY_NODE.prefix)) {
    lines.push(`## Node 24 and the machine's Node (${SECONDARY_NODE.version})`);
    lines.push("");
    lines.push(...nodeVersionsTable(rows, SECONDARY_NODE.prefix));
    lines.push("");
    lines.push(`The same requests, in the same rounds, to \`main\` (Node ${meta.machine.node}) and to \`main-machine\` (${SECONDARY_NODE.version}), same build and`);
    lines.push("settings; the client is Node 24 for both. \"vs its floor\": tools/list ÷ ceiling+page, tools/call ÷ ceiling+body, each on its own Node.");
    lines.push("");
  }
  for (const extra of meta.extraSections ?? []) lines.push(...extra, "");
  const more = moreRequestsTable(rows);
  if (more.length > 2) {
    lines.push("## More MCP requests");
    lines.push("");
    lines.push(...more);
    lines.push("");
    lines.push("initialize (2025-11-25; a new session per request) runs on `initialize`, a twin of main kept for it, so the");
    lines.push("sessions it leaves (the store keeps 10,000, then evicts the oldest) never touch the other rows' sessions;");
    lines.push("server/discover is its 2026-07-28 counterpart (no session). draft_world_outline+progress sends");
    lines.push("`_meta.progressToken` (= the request id): the answer is an SSE stream of 10 notifications/progress and the");
    lines.push("result, read to its end; each must carry this token with progress 1…10 of 10, then the 10-section outline.");
    lines.push(`create_world writes a world per request on PostgreSQL as \`${SUBJECTS.writer}\`, a subject of its own, so the`);
    lines.push("read rows (the development subject's worlds, queried by owner) never see them; the schema is dropped at the end.");
    lines.push("");
  }
  const handler = mcpHandlerTable(rows);
  if (handler.length > 2) {
    lines.push("## WorldCrafter against mcp-handler");
    lines.push("");
    lines.push(...handler);
    lines.push("");
    lines.push("mcp-handler serves suggest_names (same schemas, annotations and name generator as ours) from a minimal");
    lines.push("Next app of the same Next.js version; its `createMcpHandler` builds an McpServer per request (stateless)");
    lines.push("and answers 2025-11-25 requests with an SSE stream (the stateless legacy fallback has no JSON mode) and");
    lines.push("2026-07-28 ones with JSON. Our tools/list lists the whole WorldCrafter catalog an anonymous caller sees");
    lines.push("(answer sizes above), theirs the one tool; our tools/call also queues an audit row (written in batches).");
    lines.push("Both sides' answers are checked (tools/list: a tool array; tools/call: three names, not isError).");
    lines.push("");
  }
  const nodeRows = nodeHttpTable(rows);
  if (nodeRows.length > 2) {
    lines.push("## The MCP core on plain node:http");
    lines.push("");
    lines.push(...nodeRows);
    lines.push("");
    lines.push("`node:http raw` answers every POST with the ceiling's fixed JSON (the request not read), the same request");
    lines.push("bytes as the ceiling row; `node:http core …` is the same server with /api/mcp handed to worldcrafterEndpoint()");
    lines.push("(lib/worlds/endpoint.ts, as app/api/mcp/route.ts does) through a minimal node → web Request / Response →");
    lines.push("node adapter (bench/node-http-server.mjs), same environment as main. Each is a process of its own, so");
    lines.push("its server CPU is its own. \"node:http ÷ next start\" compares the row with the same request on Next.");
    lines.push("");
  }
  if (meta.cold) {
    lines.push("## Cold start and memory");
    lines.push("");
    if (meta.cold.error) lines.push(`**Cold starts stopped early:** ${meta.cold.error}`, "");
    if (meta.cold.runs.ceiling.length + meta.cold.runs["tools/list"].length > 0) lines.push(...coldStartTable(meta.cold), "");
    lines.push("Fresh `next start` processes of the same build and settings as main (PostgreSQL, limits off), one per run,");
    lines.push("the two kinds alternating; time = from spawn() to the first HTTP 200 with a good result, polling every 5 ms.");
    lines.push("The ceiling kind then serves only POST /api/ceiling (c=8) for the warm-up; ours serves tools/list and tools/call");
    lines.push(`in both eras (a quarter each, c=8), ${CONFIG.rssWarmupSeconds} s in all; RSS = Σ VmRSS over the process tree (/proc/<pid>/status) after it.`);
    lines.push("");
    const first = meta.cold.firstData;
    if (first?.runs.length > 0) {
      lines.push("### First data tool call after a cold start (PostgreSQL)");
      lines.push("");
      lines.push(...firstDataCallTable(first), "");
      lines.push("Three fresh `next start` processes of main's settings per run; as soon as the port accepts a TCP connection,");
      lines.push("A sends a 2026-07-28 get_world with a token first (the route module loads, the Prisma client and its pool");
      lines.push("open, the statement is prepared), B an anonymous tools/list first and then the get_world (its first data");
      lines.push("call on a loaded route); then more get_world on the same keep-alive connection. C sends the bare ceiling route first");
      lines.push("and then more of it: what the framework itself costs a process's first request (its configuration, `register()`, the");
      lines.push("route preloading it does before answering), which A pays too. Goal (issue 22): first − warm ≤ 100 ms.");
      lines.push("");
    }
    if (first?.error) lines.push(`**First data calls stopped early:** ${first.error}`, "");
  }
  const limiterSection = limiterTable(rows);
  if (limiterSection.length > 2) {
    lines.push("## Rate limiter cost");
    lines.push("");
    lines.push(...limiterSection);
    lines.push("");
    const added = limiterLines(rows);
    if (added.length > 0) lines.push(...added, "");
    lines.push("The same tools/call (suggest_names) sent to three twin servers on the same PostgreSQL schema:");
    lines.push("`main` with limits off (the tools/call row), `limits-memory` counting in process and `limits-redis`");
    lines.push("counting in Redis (@upstash/ratelimit's sliding window over ioredis, one EVALSHA per request). Budgets");
    lines.push("are never reached, so every request is counted and allowed. \"added\" = the row minus limits off at the");
    lines.push("same c; per-round = the same difference within each round. Server CPU is the `next start` tree's;");
    lines.push("Redis CPU = Δ used_cpu_user+used_cpu_sys of redis-server (INFO cpu) ÷ requests, measured for every");
    lines.push("cell, so on the limits-off and in-memory rows it is what others using the same Redis spent (its noise).");
    lines.push("At c=1 the added p50 is what one request waits for the limiter (for Redis, a round trip); at c=32");
    lines.push("requests queue in the server, so the added p50 there is mostly c × the added CPU, within a noise of");
    lines.push("several ms on a shared machine: read the CPU columns and their per-round spread first.");
    lines.push("");
  }
  lines.push("Method: closed loop, c workers each keeping one request in flight over a keep-alive `node:http` Agent");
  lines.push("(maxSockets = c, sockets connected before timing). req/s = requests / wall time summed over rounds;");
  lines.push("\"vs ceiling\" = req/s ÷ ceiling req/s at the same c; per-round = the same ratio within each round.");
  lines.push("Latency percentiles are over every request of all rounds. Server CPU = Δ utime+stime of the");
  lines.push("answering server's process tree (/proc/<pid>/stat) ÷ requests. The ceiling is `POST /api/ceiling`");
  lines.push("(a bare route returning a fixed JSON body) sent the same bytes and headers as tools/list. It never");
  lines.push("reads the request body, which any JSON-RPC route must do; `ceiling+body` (`POST /api/ceiling/read-body`)");
  lines.push("is the same route plus reading the body as the endpoint does (`readBodyLimited`: size cap, deadline, strict UTF-8), and \"vs ceiling+body\" is the ratio to it. `ceiling+page`");
  lines.push("(`POST /api/ceiling/tools-page`) reads the body too, then answers the exact bytes and content type of an");
  lines.push("anonymous 2026-07-28 tools/list page (recorded once from the MCP endpoint, replayed): tools/list's like-for-like floor.");
  lines.push("`ceiling+statement/pg` and `ceiling+limiter:…`, the floors of get_world and of the Redis rows, are described under the targets table.");
  lines.push("`ceiling+body:twin` is ceiling+body again under another name, in the same rounds (an A/A control): its ratio to");
  lines.push("ceiling+body would be 1.00x on a perfect bench, so how far it strays is how far any ratio of the run can stray when nothing differs.");
  lines.push("Every response must be HTTP 200 with a JSON `result` for the request's id (tools/call: not `isError`;");
  lines.push("get_world and list_worlds: the seeded world with its counts, a full page; ceiling+statement: that world's row; SSE only where a row says so),");
  lines.push("and from our /api/mcp the RateLimit-Limit header of its server's limiter, or none where limits are off.");
  lines.push("The server is one Node process, so once it saturates a core req/s ≈ 1 / server CPU per request:");
  lines.push("the CPU column is the noise-resistant view of the same ratio.");
  if (rows.some((r) => r.db)) {
    lines.push("");
    lines.push("Databases: the ceiling and the …/pg rows are served by the same `next start` (DATABASE_URL set);");
    lines.push("the …/pglite rows by a second one (PGLITE_DATA_DIR), idle while the others run. Server CPU of a");
    lines.push("…/pglite row includes the database (PGlite runs inside the server); of a …/pg row it does not");
    lines.push("(PostgreSQL's own processes are not counted). `prisma:…` rows run the functions of");
    lines.push("lib/worlds/data/worlds.ts that the tools' handlers call (named above; from the working tree, not the");
    lines.push("build) on a client opened by lib/db/prisma.ts in a child process, timed there with the same closed");
    lines.push("loop at the same c, with no HTTP or MCP in the way; their server CPU is that process's, and they have");
    lines.push("no separate client CPU. \"p50 vs ceiling p50\" = the row's p50 ÷ the ceiling's p50 at the same c;");
    lines.push("per-round = the same ratio within each round.");
    lines.push("tools/call (suggest_names, which reads no world data) is there to split a database row's distance from the ceiling");
    lines.push("into MCP (tools/call − ceiling) and data access (roughly the prisma:… row).");
  }
  lines.push("Reproduce: `npm run build && npm run bench` (env: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_CONCURRENCY, BENCH_SYSTEMS, BENCH_NODE, BENCH_SECONDARY, BENCH_COLD_STARTS, BENCH_STREAMS, BENCH_STREAM_PING_MS, BENCH_STREAM_HOLD_SECONDS, BENCH_REDIS_TRIP_REQUESTS, BENCH_NOTE, BENCH_NODE_FLAGS, BENCH_CPU_PROF, BENCH_RSS_WARMUP_SECONDS, BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_MCP_HANDLER_VERSION, BENCH_MCP_SERVER_VERSION, NEXT_DIST_DIR, BENCH_OUT).");
  lines.push("");
  return lines.join("\n");
}
