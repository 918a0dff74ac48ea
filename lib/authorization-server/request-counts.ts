import type { BetterAuthRateLimitStorage } from "@better-auth/core";
import { sql } from "../db/prisma";

/**
 * The authorization server's request counters, one row per key in the rate_limit table, so every
 * instance counts together: better-auth's per-address limits (as its customStorage) and the
 * per-account sign-in limit (sign-in-attempts.ts).
 *
 * Each is a fixed window: a row's "lastRequest" holds the start of its window, and a request
 * after the window is over starts a new one at 1. better-auth 1.7.5's own database storage moved
 * "lastRequest" forward on every allowed request and started afresh only after a whole quiet
 * window, so "N a minute" meant N until the traffic paused: a host whose users kept its token
 * requests coming was refused after its 600th in all (outside review, 2026-11-28).
 *
 * Time is the database's clock (one clock for every instance). Rows whose window is over are deleted
 * at most once a minute per instance, when some key starts a new window.
 */

interface CountRow {
  count: number | string;
  windowStart: number | string | bigint;
  now: number | string | bigint;
}

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window is over. */
  msLeft: number;
}

/** The database's clock in milliseconds, as a SQL expression. */
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

export interface RequestCounter {
  /** One more request under `key` in its window of `windowSeconds` (one atomic statement). */
  count(key: string, windowSeconds: number): Promise<WindowCount>;
  /** Takes back one request counted under `key` in its current window, if that window is not over. */
  uncount(key: string, windowSeconds: number): Promise<void>;
  /** better-auth's per-address limits, counted here (its rateLimit.customStorage). */
  storage: BetterAuthRateLimitStorage;
}

const PRUNE_INTERVAL_MS = 60_000;

/**
 * Counters whose windows are at most `longestWindowSeconds` long (better-auth's rules and the
 * sign-in limit): a row whose window started longer ago than that is over, and is deleted.
 */
export function requestCounter(longestWindowSeconds: number): RequestCounter {
  let lastPrune = 0;
  const pruneEnded = (now: number): void => {
    if (now - lastPrune < PRUNE_INTERVAL_MS) return;
    lastPrune = now;
    sql(`DELETE FROM rate_limit WHERE "lastRequest" <= $1`, [now - longestWindowSeconds * 1000]).catch((error: unknown) => {
      console.error("[auth] pruning request counters failed:", error instanceof Error ? error.message : error);
    });
  };

  async function count(key: string, windowSeconds: number): Promise<WindowCount> {
    const rows = await sql<CountRow>(
      `WITH clock AS (SELECT ${NOW_MS} AS now)
       INSERT INTO rate_limit AS counter (id, key, count, "lastRequest") SELECT $1, $1, 1, now FROM clock
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN counter."lastRequest" <= EXCLUDED."lastRequest" - $2 THEN 1 ELSE counter.count + 1 END,
         "lastRequest" = CASE WHEN counter."lastRequest" <= EXCLUDED."lastRequest" - $2 THEN EXCLUDED."lastRequest" ELSE counter."lastRequest" END
       RETURNING count, "lastRequest" AS "windowStart", (SELECT now FROM clock) AS now`,
      [key, windowSeconds * 1000],
    );
    const row = rows[0];
    if (!row) throw new Error("the request counter returned no row");
    const counted = Number(row.count);
    const now = Number(row.now);
    if (counted === 1) pruneEnded(now);
    return { count: counted, msLeft: Number(row.windowStart) + windowSeconds * 1000 - now };
  }

  return {
    count,
    async uncount(key, windowSeconds) {
      await sql(`UPDATE rate_limit SET count = count - 1 WHERE key = $1 AND count > 0 AND "lastRequest" > ${NOW_MS} - $2`, [key, windowSeconds * 1000]);
    },
    storage: {
      async consume(key, rule) {
        const { count: counted, msLeft } = await count(key, rule.window);
        if (counted <= rule.max) return { allowed: true, retryAfter: null };
        return { allowed: false, retryAfter: Math.max(1, Math.ceil(msLeft / 1000)) };
      },
    },
  };
}
