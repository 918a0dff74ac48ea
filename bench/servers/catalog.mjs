/**
 * The systems the bench starts: how each kind of server runs (RUNTIMES), which servers exist with
 * their database and rate limiter (SERVERS), and the environment each one gets.
 */
import path from "node:path";
import { START_SCRIPT } from "../../tests/support/next-server.mjs";
import { CONFIG, HOST, MCP_PATH, ROOT } from "../config.mjs";
import { databaseEnv, preparePglite, preparePostgres } from "../databases.mjs";
import { AUTH_KEYS_DIR } from "./auth-keys.mjs";
import { STREAMS_ENV } from "./streams-env.mjs";

/**
 * How each kind of server is run. `mcp`: it is our MCP endpoint (sessions are opened on it, its
 * answers must carry its limiter's RateLimit-Limit); the others only need the ceiling route.
 * - next: the project's `npm start` (scripts/start.mjs: `next start` of the build in CONFIG.distDir).
 * - mcp-handler: `next start` of the app bench/mcp-handler-app.mjs built (in its own folder), through
 *   the same scripts/start.mjs (it resolves `next` from its working directory): both Next apps run
 *   with the same Node settings.
 * - node-raw / node-core: bench/node-http-server.mjs, the fixed JSON alone / plus the MCP core.
 */
export const RUNTIMES = {
  next: { mcp: true, label: "`next start`", command: () => ({ script: START_SCRIPT, args: (port) => ["-H", HOST, "-p", String(port)], cwd: ROOT }) },
  "mcp-handler": {
    mcp: false,
    label: "`next start` of the mcp-handler app",
    command: (context) => ({ script: START_SCRIPT, args: (port) => ["-H", HOST, "-p", String(port)], cwd: context.mcpHandlerApp.dir }),
  },
  "node-raw": { mcp: false, label: "`node:http`", command: () => ({ script: path.join(ROOT, "bench", "node-http-server.mjs"), args: () => [], cwd: ROOT, env: { BENCH_NODE_MODE: "raw" } }) },
  "node-core": { mcp: true, label: "`node:http` + core", command: () => ({ script: path.join(ROOT, "bench", "node-http-server.mjs"), args: () => [], cwd: ROOT, env: { BENCH_NODE_MODE: "core" } }) },
};

export const DATABASES = [
  { key: "pg", label: "PostgreSQL", prepare: () => preparePostgres(CONFIG.databaseUrl) },
  { key: "pglite", label: "PGlite", prepare: preparePglite },
];

/**
 * The servers: each one's database and rate limiter. The main one is always on the bench's
 * PostgreSQL schema, even for the framework rows alone: every tools/call writes an audit row,
 * which without DATABASE_URL would land in the developer's embedded database (.data/pglite), and
 * the tools/call rows would then cost different things depending on which other rows were
 * selected. The limits-… servers are its twins on the same schema, differing only in the limiter.
 * `limiter` undefined = limits off (MCP_RATE_LIMITS=0).
 */
export const SERVERS = {
  main: { db: "pg" },
  pglite: { db: "pglite" },
  "limits-memory": { db: "pg", limiter: "memory" },
  "limits-redis": { db: "pg", limiter: "redis" },
  // A twin of main on the machine's Node (bench/runtime.mjs): the secondary `node20:…` rows.
  "main-machine": { db: "pg", node: "secondary" },
  // Main's settings for the idle-streams cell: its pings, lifetimes and session store (cells/idle-streams.mjs).
  streams: { db: "pg", env: STREAMS_ENV },
  // Its twin for the floor of that cell: bare-route streams (POST /api/ceiling/stream) on a fresh process.
  "streams-floor": { db: "pg", env: STREAMS_ENV },
  // A twin of main for the initialize row alone: every initialize leaves a session behind.
  initialize: { db: "pg" },
  // The other stacks (RUNTIMES). node-core is our core again, so it has main's settings.
  "node-raw": { runtime: "node-raw" },
  "node-core": { runtime: "node-core", db: "pg" },
  "mcp-handler": { runtime: "mcp-handler" },
};

/** The limiters with rows of their own, in report order (`off` = the main server's tools/call). */
export const LIMITERS = ["memory", "redis"];

/**
 * Budgets of the limiting servers, per method: the most lib/config/env.ts accepts, a million per
 * 60 s window. Even a server answering ~1,000 req/s for the whole window counts 60,000, so nothing
 * is ever refused: every request pays for being counted and for nothing else.
 */
export const LIMIT_WINDOW_SECONDS = 60;
export const LIMIT_BUDGETS = { "tools/list": 1_000_000, "tools/call": 1_000_000, initialize: 1_000_000, other: 1_000_000 };

/** The server a system's requests go to: its own if it names one, PGlite rows theirs, everything else the main one. */
export const serverKeyOf = (system) => system.server ?? (system.db === "pglite" ? "pglite" : "main");

/** The databases a system needs: its own data, and its server's. */
export const databasesOf = (system) => [system.db, system.direct ? undefined : SERVERS[serverKeyOf(system)].db].filter(Boolean);

/** Does any of `systems` run on a server that counts in Redis? */
export const needsRedis = (systems) => systems.some((s) => s.redis || (!s.direct && SERVERS[serverKeyOf(s)].limiter === "redis"));

/** Is server `key` our MCP endpoint (next start or node-core), as opposed to a reference stack? */
export const isOurs = (key) => RUNTIMES[SERVERS[key].runtime ?? "next"].mcp;

/**
 * A server's limiter settings. Whatever the shell says about limits or Redis is dropped first, so
 * a REDIS_URL there cannot turn limits-memory into a Redis limiter, nor MCP_RATE_LIMITS=1 turn
 * limits on for the reference rows.
 */
export function limiterEnv(env, limiter, redis) {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !/^(MCP_RATE_LIMIT|REDIS_URL$|UPSTASH_REDIS_REST_|MCP_CLUSTER_PREFIX$)/.test(name)));
  if (!limiter) return { ...kept, MCP_RATE_LIMITS: "0" };
  return {
    ...kept,
    MCP_RATE_LIMITS: "1",
    MCP_RATE_LIMIT_WINDOW_SECONDS: String(LIMIT_WINDOW_SECONDS),
    MCP_RATE_LIMIT_TOOLS_LIST: String(LIMIT_BUDGETS["tools/list"]),
    MCP_RATE_LIMIT_TOOLS_CALL: String(LIMIT_BUDGETS["tools/call"]),
    MCP_RATE_LIMIT_OTHER: String(LIMIT_BUDGETS.other),
    MCP_RATE_LIMIT_INITIALIZE: String(LIMIT_BUDGETS.initialize),
    // Fail closed: a Redis that stops answering turns into 503s (errors), not unlimited passes.
    MCP_RATE_LIMIT_FAILURE: "closed",
    // This run's own key prefix (bench/redis.mjs): no other run's sessions, and deleted at the end.
    ...(limiter === "redis" ? { REDIS_URL: redis.url, MCP_CLUSTER_PREFIX: redis.prefix } : {}),
  };
}

/**
 * The environment of server `key` on `port`: for our MCP servers the bench's settings (database,
 * limiter, auth with the built-in authorization server's keys); for the others only what production needs.
 */
export function serverEnv(key, port, { databases, redis }) {
  const { db, limiter, runtime = "next", env: own = {} } = SERVERS[key];
  // MCP_BENCH_ROUTES: our build serves /api/ceiling(/read-body) only when asked (404 in production).
  const base = { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", MCP_BENCH_ROUTES: "1" };
  if (!RUNTIMES[runtime].mcp) {
    const { NEXT_DIST_DIR: _dist, ...inherited } = databaseEnv({});
    return { ...inherited, ...(runtime === "next" ? { NEXT_DIST_DIR: CONFIG.distDir } : {}), ...base };
  }
  return {
    ...limiterEnv(databaseEnv(databases.get(db).serverEnv), limiter, redis),
    ...base,
    MCP_LOG_REQUESTS: "0",
    MCP_SESSION_MODE: "stateful",
    // Tokens signed with the built-in authorization server's keys (the bench signs with the same folder); anonymous
    // callers still reach the open tools, so both kinds of tools/list can be measured.
    MCP_AUTH_MODE: "mixed",
    BETTER_AUTH_SECRET: "bench-only-better-auth-secret-0123456789abcdef",
    MCP_AUTH_KEYS_DIR: AUTH_KEYS_DIR,
    MCP_RESOURCE_URL: `http://${HOST}:${port}${MCP_PATH}`,
    // The create_world row writes thousands of worlds as one subject: the write is measured, not the quota.
    MCP_MAX_WORLDS_PER_USER: "1000000",
    ...own,
  };
}
