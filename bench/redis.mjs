// The Redis the `limits-redis` server counts its rate limits in (REDIS_URL), as the bench sees it:
// a loopback check, a ping before any server depends on it, the redis-server's own CPU time (it
// is not in the server's process tree, like PostgreSQL's), and at the end a look at the keys the
// limiter left behind. Every key the run writes is under a prefix of its own (MCP_CLUSTER_PREFIX
// for the servers, the limiter cell's store alike), so one run never sees another's sessions and
// the end deletes this run's keys alone: the store may be shared with others.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);


/** redis-server's used_cpu_user + used_cpu_sys in milliseconds (INFO cpu). */
function cpuMsOf(info) {
  const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(info)?.[1] ?? NaN);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
}

/**
 * A connection to the Redis at `url` (loopback only: the benchmark must not load another machine).
 * `prefix`: this run's MCP_CLUSTER_PREFIX.
 * @returns {Promise<{ url: string, prefix: string, description: string, cpuMs: () => Promise<number>, close: () => Promise<void> }>}
 */
export async function prepareRedis(url) {
  const parsed = new URL(url);
  if (parsed.protocol !== "redis:") throw new Error(`BENCH_REDIS_URL must be a redis:// URL, got ${parsed.protocol}`);
  if (!LOOPBACK.has(parsed.hostname)) throw new Error(`BENCH_REDIS_URL must name a loopback host, got ${parsed.hostname}`);
  const db = Number(parsed.pathname.slice(1) || 0);
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  client.on("error", () => undefined); // surfaced by the awaited commands below
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new Error(`Redis at ${parsed.host} does not answer (${err?.message ?? err}); the limits:redis rows need it (BENCH_REDIS_URL)`);
  }
  const version = /^redis_version:(.+)$/m.exec(await client.info("server"))?.[1]?.trim() ?? "unknown";
  const prefix = `bench-${randomBytes(6).toString("hex")}`;
  // lib/ratelimit/redis-store.ts's counters: `<prefix>:rl:<budget>:<caller>…`.
  const limiterKeyPrefix = `${prefix}:rl:`;
  return {
    url,
    prefix,
    description: `Redis ${version} at ${parsed.host}, database ${db}, keys under \`${prefix}:\` (MCP_CLUSTER_PREFIX; the limiter's are checked to expire, then this run's keys are deleted at the end)`,
    async cpuMs() {
      return cpuMsOf(await client.info("cpu"));
    },
    /** Checks that every limiter key of this run expires, deletes this run's keys, then disconnects. */
    async close() {
      try {
        let count = 0;
        let longestMs = 0;
        let deleted = 0;
        const lasting = [];
        // One pass over this run's keys: the limiter's are checked to expire, then every key goes
        // (sessions keep a day's TTL: a later run must start without them).
        for await (const keys of client.scanStream({ match: `${prefix}:*`, count: 1000 })) {
          for (const key of keys) {
            if (!key.startsWith(limiterKeyPrefix)) continue;
            const ttl = await client.pttl(key);
            count++;
            if (ttl === -1) lasting.push(key);
            else longestMs = Math.max(longestMs, ttl);
          }
          if (keys.length > 0) deleted += await client.unlink(...keys);
        }
        if (lasting.length > 0) console.warn(`[bench] warning: ${lasting.length} rate-limit key(s) in Redis database ${db} never expire (e.g. ${lasting[0]})`);
        console.log(`[bench] Redis database ${db}: ${count} rate-limit key(s) left, ${lasting.length > 0 ? "some without" : "all with"} an expiry (longest ${Math.ceil(longestMs / 1000)} s)`);
        console.log(`[bench] Redis database ${db}: deleted this run's ${deleted} key(s) under ${prefix}:`);
      } finally {
        client.disconnect();
      }
    },
  };
}
