import { createHash } from "node:crypto";
import type { Redis as IORedis } from "ioredis";

/**
 * The part of @upstash/redis that @upstash/ratelimit (2.2) calls, over any Redis reached by
 * REDIS_URL (ioredis). Ratelimit runs its Lua scripts with EVALSHA, falling back to EVAL on
 * NOSCRIPT; since 2.1 each script starts with `#!lua flags=allow-key-locking`, a shebang stock
 * Redis 7.0 refuses. So scripts are run without that line, and Ratelimit's hashes (of the
 * original text) are mapped to the hashes of what Redis actually holds.
 */
const SHEBANG = /^#!lua[^\n]*\n/;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

export interface UpstashScriptClient {
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
  evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown>;
}

export class PlainRedisScripts implements UpstashScriptClient {
  /** Ratelimit's hash of a script → the hash of the script Redis was given. */
  private readonly loaded = new Map<string, string>();

  constructor(private readonly redis: IORedis) {}

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const stripped = script.replace(SHEBANG, "");
    const result = await this.redis.eval(stripped, keys.length, ...keys, ...args.map(asArg));
    this.loaded.set(sha1(script), sha1(stripped));
    return result;
  }

  async evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown> {
    const actual = this.loaded.get(sha);
    // Never seen: answer as Redis would, so Ratelimit sends the script itself (eval above).
    if (!actual) throw new Error("NOSCRIPT No matching script (not loaded through this client yet)");
    return this.redis.evalsha(actual, keys.length, ...keys, ...args.map(asArg));
  }
}

/** Redis takes strings: numbers as decimal text, null (Ratelimit's "no dynamic limit") as "". */
function asArg(value: unknown): string | number {
  if (typeof value === "number" || typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}
