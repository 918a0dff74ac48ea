import { z } from "zod";

/**
 * The one place that reads the environment. Validated once; everything else receives typed
 * config. `.env.example` documents each variable.
 */
const list = z
  .string()
  .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean));

const bool = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const EnvSchema = z.object({
  MCP_SESSION_MODE: z.enum(["stateful", "stateless"]).default("stateful"),
  MCP_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 24 * 3600).default(24 * 3600),
  MCP_ALLOWED_ORIGINS: list.default(["https://chatgpt.com", "https://chat.openai.com", "https://claude.ai"]),
  MCP_ALLOW_LOOPBACK_ORIGINS: bool.default(true),
  MCP_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
  MCP_MAX_BATCH: z.coerce.number().int().min(1).max(1000).default(32),
  MCP_MAX_JSON_DEPTH: z.coerce.number().int().min(8).max(1000).default(64),
  MCP_SSE_KEEPALIVE_MS: z.coerce.number().int().min(0).default(15_000),
  MCP_SSE_RETRY_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  MCP_RESUME_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  MCP_STREAM_RETENTION_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  MCP_CLIENT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
  MCP_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  MCP_LOG_REQUESTS: bool.default(true),
  /** HMAC key for 2026-07-28 requestState; every instance of a deployment must share it. */
  MCP_REQUEST_STATE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  MCP_REQUEST_STATE_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(600),
  MCP_LIST_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  MCP_LISTEN_MAX_LIFETIME_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(280_000),
  MCP_CONFORMANCE_FIXTURES: bool.default(false),
  /** PostgreSQL (postgresql://user:password@host:port/db[?schema=name]); unset: embedded PGlite. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
    .optional(),
  /** The embedded database's folder (relative to the project) when DATABASE_URL is unset. */
  PGLITE_DATA_DIR: z.string().default(".data/pglite"),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

/** Parse the environment once; a bad value stops start-up with a message naming the variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  if (cached && source === process.env) return cached;
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  if (source === process.env) cached = parsed.data;
  return parsed.data;
}
