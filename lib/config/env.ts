import { z } from "zod";
import { isAddressOrRange } from "./address-range";
import { isExactHttpsOrigin } from "./https-origin";
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS_PER_ADDRESS_LIMIT, parseConnectionCap } from "./connection-cap-default.mjs";

/**
 * The one place that reads the environment. Validated once; everything else receives typed
 * config. `.env.example` documents each variable.
 */
const list = z
  .string()
  .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean));

const bool = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const url = z.url({ protocol: /^https?$/ });

/**
 * import_world's default size limit, and the `maxLength` its `document` argument publishes: an
 * inline document travels in a request body, which MCP_MAX_BODY_BYTES (also 1 MiB) bounds anyway.
 */
export const IMPORT_MAX_BYTES_DEFAULT = 1024 * 1024;

const EnvSchema = z.object({
  MCP_SESSION_MODE: z.enum(["stateful", "stateless"]).default("stateful"),
  MCP_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 24 * 3600).default(24 * 3600),
  MCP_ALLOWED_ORIGINS: list.default(["https://chatgpt.com", "https://chat.openai.com", "https://claude.ai"]),
  MCP_ALLOW_LOOPBACK_ORIGINS: bool.default(true),
  MCP_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
  /** A request body still incomplete after this long is answered 408 (Node alone would wait 300 s). */
  MCP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /**
   * Connections one client (an address; IPv6: its /64) may hold waiting for a request under npm
   * start and npm run dev; trusted proxies are not capped; 0: no cap. Read by
   * lib/http/connection-cap.mjs, in front of Next; validated here so a malformed value stops the start.
   */
  MCP_MAX_CONNECTIONS_PER_ADDRESS: z
    .string()
    .refine((v) => parseConnectionCap(v) !== undefined, `a whole number from 0 (no cap) to ${MAX_CONNECTIONS_PER_ADDRESS_LIMIT}`)
    .transform((v) => parseConnectionCap(v) as number)
    .default(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
  MCP_MAX_BATCH: z.coerce.number().int().min(1).max(1000).default(32),
  /** Tools switched off from start-up (comma-separated names); `npm run tools` switches at run time. */
  MCP_DISABLED_TOOLS: list.default([]),
  /** The most calls one tools/batch request may carry (seed 001 §parallel tool execution). */
  MCP_MAX_TOOL_BATCH: z.coerce.number().int().min(1).max(100).default(10),
  MCP_MAX_JSON_DEPTH: z.coerce.number().int().min(8).max(1000).default(64),
  MCP_SSE_KEEPALIVE_MS: z.coerce.number().int().min(0).default(15_000),
  /** GET streams: a keep-alive comment this often; with ?events=named a named `ping` event (seed 001). */
  MCP_SSE_PING_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  MCP_SSE_RETRY_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  MCP_RESUME_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  MCP_STREAM_RETENTION_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  /** A tools/call handler still running after this long is aborted and answered isError (below the platform's function limit). */
  MCP_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(280_000),
  MCP_CLIENT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
  MCP_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  MCP_LOG_REQUESTS: bool.default(true),
  /** HMAC key for 2026-07-28 requestState; every instance of a deployment must share it. */
  MCP_REQUEST_STATE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  MCP_REQUEST_STATE_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(600),
  MCP_LIST_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  MCP_LISTEN_MAX_LIFETIME_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(280_000),
  /** Durable tasks (io.modelcontextprotocol/tasks, docs/tasks.md): offered when on; stored in the database. */
  MCP_TASKS: bool.default(true),
  /** How long a task (and its result) stays readable after it was created. */
  MCP_TASK_TTL_MS: z.coerce.number().int().min(1_000).max(7 * 86_400_000).default(3_600_000),
  /** The poll interval clients are told (pollIntervalMs). */
  MCP_TASK_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  /** A running task's lease: renewed every third of it; a task whose lease ran out reads failed. */
  MCP_TASK_LEASE_MS: z.coerce.number().int().min(300).max(600_000).default(30_000),
  MCP_TASKS_MAX_RUNNING_PER_CALLER: z.coerce.number().int().min(1).max(10_000).default(10),
  MCP_TASKS_MAX_STORED_PER_CALLER: z.coerce.number().int().min(1).max(100_000).default(200),
  /** The largest task result kept (bytes of JSON); a larger one fails the task. */
  MCP_TASK_MAX_RESULT_BYTES: z.coerce.number().int().min(1_024).max(50_000_000).default(4_000_000),
  MCP_CONFORMANCE_FIXTURES: bool.default(false),
  /**
   * Mount the benchmark's bare routes (/api/ceiling and those under it); off: they 404. Never on a
   * deployment: /api/ceiling/statement reads the development subject's worlds without a token.
   */
  MCP_BENCH_ROUTES: bool.default(false),
  /** PostgreSQL (postgresql://user:password@host:port/db[?schema=name]); unset: embedded PGlite. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
    .optional(),
  /** The embedded database's folder (relative to the project) when DATABASE_URL is unset. */
  PGLITE_DATA_DIR: z.string().default(".data/pglite"),

  // ── Authorization (lib/auth; see .env.example) ──────────────────────────────────────────────
  /** required: every request needs a valid token. mixed: anonymous callers reach noauth tools. */
  MCP_AUTH_MODE: z.enum(["required", "mixed"]).optional(),
  /** The canonical URL of /api/mcp: the tokens' audience and the metadata's `resource`; its origin is every other endpoint's (lib/auth/auth-settings.ts). */
  MCP_RESOURCE_URL: url.optional(),
  MCP_RESOURCE_NAME: z.string().min(1).max(200).default("WorldCrafter"),
  MCP_RESOURCE_DOCUMENTATION: url.optional(),
  /** The authorization server's issuer identifier. Unset: the built-in authorization server (lib/authorization-server). */
  MCP_AUTH_ISSUER: url.optional(),
  /** Its JWKS; default: jwks_uri from its metadata. */
  MCP_AUTH_JWKS_URL: url.optional(),
  /** Expected `aud`; default MCP_RESOURCE_URL (RFC 8707). */
  MCP_AUTH_AUDIENCE: z.string().min(1).optional(),
  MCP_AUTH_ALGORITHMS: list.default(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]),
  /** Supabase-style projects: HS256 tokens signed with this shared secret (off unless set). */
  MCP_AUTH_HS256_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  MCP_AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  MCP_AUTH_MAX_TOKEN_AGE_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  MCP_AUTH_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  MCP_AUTH_JWKS_CACHE_MAX_AGE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
  MCP_AUTH_JWKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Scopes granted to a valid token that carries no scope claim at all (providers without scopes). */
  MCP_AUTH_IMPLICIT_SCOPES: list.default([]),
  // ── The built-in authorization server (lib/authorization-server), the issuer when MCP_AUTH_ISSUER is unset
  /** Signs sessions, OAuth query strings and encrypts the signing keys kept in the database. Required in production. */
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 32`)").optional(),
  /**
   * A folder for the signing keys instead of the database (development default `.data/auth-keys`;
   * `npm run token` signs with the same file). Unset in production: keys live in the database.
   */
  MCP_AUTH_KEYS_DIR: z.string().optional(),
  /** open: anyone may create an account; closed: only existing accounts sign in. */
  MCP_AUTH_SIGNUP: z.enum(["open", "closed"]).default("open"),
  /** When set, only e-mail addresses of these domains may sign up (`example.com,example.org`). */
  MCP_AUTH_SIGNUP_DOMAINS: list.pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "each entry must be a domain"))).default([]),
  MCP_AUTH_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(5).max(24 * 3600).default(900),
  MCP_AUTH_REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(365 * 24 * 3600).default(30 * 24 * 3600),
  /** Failed sign-ins per account in MCP_AUTH_SIGN_IN_WINDOW_SECONDS (successful ones are not counted); per address, five times as many sign-ins, failed or not. */
  MCP_AUTH_SIGN_IN_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  MCP_AUTH_SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  /** better-auth's per-address limits on its endpoints (token, registration, sign-in…); the per-account sign-in limit always applies. */
  MCP_AUTH_RATE_LIMITS: bool.default(true),
  /**
   * Token requests (codes redeemed, refreshes) per address a minute, and as many revocations.
   * ChatGPT and Claude call the token endpoint from their own servers, so one address is every
   * user of that host: better-auth's 20 a minute would throttle them all together once a few
   * hundred are linked.
   */
  MCP_AUTH_TOKEN_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(600),
  /** Client registrations per address a minute: a host registers once per person who adds the app (better-auth's own default: 5). */
  MCP_AUTH_REGISTRATIONS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(60),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Any OpenID Connect provider for sign-in: its issuer (discovery at /.well-known/openid-configuration). */
  MCP_AUTH_OIDC_ISSUER: url.optional(),
  MCP_AUTH_OIDC_CLIENT_ID: z.string().min(1).optional(),
  MCP_AUTH_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  MCP_AUTH_OIDC_NAME: z.string().min(1).max(60).default("single sign-on"),
  // ── Rate limits and input limits (lib/ratelimit, lib/http; see .env.example) ─────────────────
  MCP_RATE_LIMITS: bool.default(true),
  MCP_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  MCP_RATE_LIMIT_TOOLS_LIST: z.coerce.number().int().min(1).max(1_000_000).default(10),
  MCP_RATE_LIMIT_TOOLS_CALL: z.coerce.number().int().min(1).max(1_000_000).default(60),
  MCP_RATE_LIMIT_OTHER: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /** tasks/get, tasks/update, tasks/cancel, tasks/result, tasks/list; unset: enough to poll every running task at its interval, twice over (lib/ratelimit/settings.ts). */
  MCP_RATE_LIMIT_TASKS: z.coerce.number().int().min(1).max(1_000_000).optional(),
  /** Per-tool budgets on top of tools/call's: `export_world=10,create_world=30`. */
  MCP_RATE_LIMIT_TOOLS: list.pipe(z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,128}=\d{1,6}$/, "each entry must be tool=limit"))).default([]),
  MCP_MAX_STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(1000).default(5),
  /** initialize per caller per window: each may create a session. */
  MCP_RATE_LIMIT_INITIALIZE: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /** Sessions one caller may hold; its next initialize ends its own oldest (never anyone else's). */
  MCP_MAX_SESSIONS_PER_CALLER: z.coerce.number().int().min(1).max(100_000).default(50),
  /**
   * Sessions one process keeps in memory (without Redis); past it, a new session ends the oldest
   * one of the caller holding the most.
   */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * Proxies in front of the server whose X-Forwarded-For names the client (addresses or CIDR
   * ranges). Anyone else's forwarding headers are ignored: anonymous budgets use the socket address.
   */
  MCP_TRUSTED_PROXIES: list.pipe(z.array(z.string().refine(isAddressOrRange, "each entry must be an IP address or a CIDR range"))).default([]),
  /** What happens when the rate-limit store cannot answer: open lets requests through, closed answers 503. */
  MCP_RATE_LIMIT_FAILURE: z.enum(["open", "closed"]).default("open"),
  MCP_RATE_LIMIT_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1_000),
  UPSTASH_REDIS_REST_URL: url.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  /** Any Redis (redis://, rediss://) for self-hosted deployments. */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  /** How long a cluster-state command (sessions, stream logs) may take before it fails. */
  MCP_CLUSTER_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2_000),
  /**
   * How long an instance's liveness key in Redis lives unless renewed (three times within it): an
   * instance killed without a word (SIGKILL, reclaimed) is known to be gone this long after its
   * last renewal, and its streams are handed on. Shorter notices sooner at one small write more.
   */
  MCP_INSTANCE_LIVENESS_MS: z.coerce.number().int().min(1_500).max(300_000).default(15_000),
  /**
   * A dedicated https origin for the widgets (`_meta.ui.domain`, `openai/widgetDomain`). Read where
   * the widgets are defined (lib/worlds/widgets); validated here with everything else at start-up,
   * by the rule the widget registry applies (an http:// value or a path passed here once, and then
   * every request that listed the widgets failed).
   */
  MCP_WIDGET_DOMAIN: z
    .string()
    .refine(isExactHttpsOrigin, "must be an https origin: https://host[:port], lower case, no path, no wildcard")
    .optional(),
  /** Audit rows (one per tools/call) older than this are deleted, in the background; 0 keeps them forever. */
  MCP_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  /**
   * What one account may keep (lib/worlds/data/quotas.ts): worlds, and characters and locations
   * together in one world. Without a bound one account's import_world calls added 2,000 rows each.
   */
  MCP_MAX_WORLDS_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(200),
  MCP_MAX_RECORDS_PER_WORLD: z.coerce.number().int().min(1).max(1_000_000).default(2_000),
  /** How long an export's download link (GET /api/files/<token>) stays valid. */
  MCP_DOWNLOAD_LINK_TTL_SECONDS: z.coerce.number().int().min(10).max(24 * 3600).default(900),
  /** import_world: the largest world file it reads (fetched or inline); reading stops past it. */
  MCP_IMPORT_MAX_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(IMPORT_MAX_BYTES_DEFAULT),
  /** import_world: the whole fetch of a file URL (every redirect hop included) within this time. */
  MCP_IMPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * Tests only: import_world may fetch http:// and https:// URLs on loopback addresses (a local
   * test server). Every other private, link-local or unique-local address stays refused.
   */
  MCP_IMPORT_ALLOW_LOOPBACK: bool.default(false),
  /** First part of every cluster key and channel: deployments sharing one Redis set different ones. */
  MCP_CLUSTER_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, "letters, digits, '_', '.', '-' (at most 40)").default("mcp"),
  /** GET streams end after this long (clients reconnect); keep it below the platform's function limit. */
  MCP_STREAM_MAX_LIFETIME_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(280_000),
  /** All request headers together; more gets 431. */
  MCP_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(256 * 1024).default(16 * 1024),

  /** Set by the platform: which build this is, and Vercel's production host. */
  NODE_ENV: z.string().optional(),
  VERCEL_PROJECT_PRODUCTION_URL: z.string().optional(),
  /**
   * Set to 1 by Vercel: its edge sets x-vercel-forwarded-for / x-forwarded-for, so they name the
   * client; and its file system is read-only, so the embedded database cannot live there.
   */
  VERCEL: z.string().optional(),
  PORT: z.coerce.number().int().min(1).max(65535).optional(),
});

export type Env = z.infer<typeof EnvSchema>;

/** Cross-variable rules zod's per-field schema cannot say. */
function crossCheck(env: Env): string[] {
  const problems: string[] = [];
  if ((env.UPSTASH_REDIS_REST_URL === undefined) !== (env.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    problems.push("  UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  for (const [id, secret] of [["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"], ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"], ["MCP_AUTH_OIDC_CLIENT_ID", "MCP_AUTH_OIDC_CLIENT_SECRET"]] as const) {
    if ((env[id] === undefined) !== (env[secret] === undefined)) problems.push(`  ${id} and ${secret} must be set together`);
  }
  if ((env.MCP_AUTH_OIDC_ISSUER === undefined) !== (env.MCP_AUTH_OIDC_CLIENT_ID === undefined)) {
    problems.push("  MCP_AUTH_OIDC_ISSUER and MCP_AUTH_OIDC_CLIENT_ID must be set together");
  }
  return problems;
}

let cached: Env | undefined;

/** Parse the environment once; a bad value stops start-up with a message naming the variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  if (cached && source === process.env) return cached;
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  // Without zod's JIT: this 100-key object is parsed once a process (twice in a cold start: the
  // instrumentation's copy of this module and the routes'), and compiling a fast parser for it
  // cost more than it saves: 6–11 ms of CPU a cold start on Node 24 (bench/PROFILING.md, round 29).
  const parsed = EnvSchema.safeParse(cleaned, { jitless: true });
  const lines = parsed.success ? crossCheck(parsed.data) : parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  if (!parsed.success || lines.length > 0) throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  if (source === process.env) cached = parsed.data;
  return parsed.data;
}
