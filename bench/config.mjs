/**
 * The bench's settings, read once from the environment (see run.mjs's header for each variable),
 * and the names every other module shares: the loopback host, the routes, the protocol version.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const HOST = "127.0.0.1"; // never anything else: this tool must not load a remote machine

// Configuration (env). Defaults: 51 systems (44, and 7 again on the machine's Node) x 2 concurrencies
// x 5 rounds x 4 s = 34 min measured, plus warm-up, database set-up, start-up, the cold starts and
// the extra cells: about 40 minutes (48 systems took 38 in RESULTS.md's run; the first run also
// installs and builds the mcp-handler app, ~1 min). BENCH_SYSTEMS picks a subset.
export function envNumber(name, fallback, { min = 0, integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a${integer ? "n integer" : " number"} >= ${min}, got "${raw}"`);
  }
  return value;
}

export const CONFIG = {
  seconds: envNumber("BENCH_SECONDS", 4, { min: 0.1 }),
  rounds: envNumber("BENCH_ROUNDS", 5, { min: 1, integer: true }),
  warmupSeconds: envNumber("BENCH_WARMUP_SECONDS", 2, { min: 0 }),
  concurrencies: (process.env.BENCH_CONCURRENCY ?? "1,32").split(",").map((s) => {
    const c = Number(s.trim());
    if (!Number.isInteger(c) || c < 1) throw new Error(`BENCH_CONCURRENCY: bad value "${s}"`);
    return c;
  }),
  // Subset of systems, e.g. "tools/call" alone for a clean profile; ratios need "ceiling" in it.
  // `*` matches any text: "ceiling,*pg" is the ceiling and every PostgreSQL row.
  systems: process.env.BENCH_SYSTEMS ? process.env.BENCH_SYSTEMS.split(",").map((s) => s.trim()) : undefined,
  cpuProf: process.env.BENCH_CPU_PROF === "1",
  // Extra Node/V8 flags for every measured server, e.g. "--log-deopt --logfile=/tmp/v8-%p.log"
  // to see which functions V8 gives up optimizing under load (round 25). Split on whitespace.
  nodeFlags: (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean),
  // Same variable next.config.ts reads: a private build survives someone else rebuilding .next.
  // (Note: `next build` into a new dir adds "<dir>/types/**/*.ts" to tsconfig.json's include.)
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The PostgreSQL database the bench makes its schema in (loopback only); as tests/support does.
  databaseUrl: process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test",
  // The Redis the limits-redis server counts in (loopback only). A database of its own (/15): the
  // bench's caller is the loopback address, as other local servers' anonymous callers are, and
  // its hundreds of thousands of requests must not spend their budgets (nor theirs ours).
  redisUrl: process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379/15",
  out: path.resolve(ROOT, process.env.BENCH_OUT ?? "bench/RESULTS.md"),
  // Cold starts of each kind (ceiling, tools/list); 0 = none. Selected like a system: "cold-start".
  coldStarts: envNumber("BENCH_COLD_STARTS", 5, { min: 0, integer: true }),
  // How long each cold-started process is loaded before its memory is read.
  rssWarmupSeconds: envNumber("BENCH_RSS_WARMUP_SECONDS", 4, { min: 0.5 }),
};

// Profile mode: <name>.cpuprofile (written by the server at exit) + <name>.json (how many requests
// it served, and each timed cell's window and request count), so bench/profile-top.mjs can report
// microseconds per request of one system's timed cells alone. One pair per server.
export const PROFILE_DIR = path.join(ROOT, "bench", ".work", "profiles");
export const PROFILE_NAME = `${new Date().toISOString().replace(/[:.]/g, "-")}_${(CONFIG.systems ?? ["all"]).join("+").replace(/[/*:]/g, "-")}`;

export const PROTOCOL_VERSION = "2025-11-25";
export const MCP_PATH = "/api/mcp";

export const CEILING_PATH = "/api/ceiling";
/** The bare route plus reading the body: the least a JSON-RPC route does (the targets' floor). */
export const CEILING_BODY = "ceiling+body";
/**
 * ceiling+body again under another name, in the same rounds: an A/A control. Its ratio to
 * ceiling+body is how far one run's ratios stray when nothing differs, the yardstick for a 0.95x goal.
 */
export const CEILING_BODY_TWIN = "ceiling+body:twin";
/** The tools/list floor: ceiling+body answering the exact bytes of a tools/list page (like for like). */
export const CEILING_PAGE = "ceiling+page";
export const CEILING_PAGE_PATH = `${CEILING_PATH}/tools-page`;
/**
 * get_world's floor: the same route waiting on get_world's one statement, then answering its row
 * (app/api/ceiling/statement). Measured, not added up: a request that waits on the database
 * mid-way pays for the wake-up that the statement timed alone never does.
 */
export const CEILING_STATEMENT = "ceiling+statement";
export const CEILING_STATEMENT_PATH = `${CEILING_PATH}/statement`;
/** The header that names the world that route reads (the body is read, never parsed). */
export const STATEMENT_WORLD_HEADER = "x-bench-world";
/** The Redis rows' floor: the same route spending one tools/call budget through its server's limiter (app/api/ceiling/limiter). */
export const CEILING_LIMITER = "ceiling+limiter";
export const CEILING_LIMITER_PATH = `${CEILING_PATH}/limiter`;
/** "ceiling+statement/pg", "ceiling+limiter:redis": a floor row on a database or a limiter. */
export const statementRowName = (db) => `${CEILING_STATEMENT}/${db}`;
export const limiterRowName = (limiter) => `${CEILING_LIMITER}:${limiter}`;
/** The row of a query timed alone in the db worker, no HTTP: "prisma:get_world/pg". */
export const directRowName = (query, db) => `prisma:${query}/${db}`;

/** The name BENCH_SYSTEMS selects the cold starts and memory readings by. */
export const COLD_START = "cold-start";
