import type { Budget } from "./budgets";

/**
 * In-process counters: the zero-setup default. Each instance counts on its own, so on several
 * instances the effective limit is multiplied; the server says so once at start-up. The window
 * is a sliding approximation — this window's count plus the previous one's, weighted by how much
 * of it still overlaps — the same algorithm @upstash/ratelimit's slidingWindow uses in Redis.
 */
export interface WindowCounts {
  allowed: boolean;
  remaining: number;
  resetAt: number;
}

/** Counters kept before newcomers share one (below); twice as many before old windows are swept regardless. */
const MAX_KEYS = 100_000;

/**
 * Where callers seen for the first time while the table is full are counted, together, per budget:
 * signed-in callers apart from anonymous ones, so a flood of addresses does not also lock out
 * every account that signs in during it (verification probe, 2026-11-29). No caller key has a
 * control character in it (policy/rate-limit.ts callerKey: `sub:` or `ip:`).
 */
const NEWCOMERS_PREFIX = "\u0001newcomers:";
const newcomersOf = (caller: string): string => `${NEWCOMERS_PREFIX}${caller.startsWith("sub:") ? "sub" : "other"}`;

export class MemoryWindows {
  private readonly counts = new Map<string, number>();
  /** The window of the last sweep: a second one in the same window would find nothing to drop. */
  private swept = Number.NaN;

  constructor(private readonly maxKeys = MAX_KEYS) {}

  take(budget: Budget, caller: string, now = Date.now()): WindowCounts {
    const window = Math.floor(now / budget.windowMs);
    const key = `${budget.name}\u0000${caller}\u0000${window}`;
    const previousKey = `${budget.name}\u0000${caller}\u0000${window - 1}`;
    if (this.counts.size >= this.maxKeys && !caller.startsWith(NEWCOMERS_PREFIX) && !this.counts.has(key) && !this.counts.has(previousKey)) {
      this.sweep(now, budget.windowMs);
      // Still full: this caller is new, and counts with every other newcomer until windows age
      // out. Clearing the table instead, as it once did, gave every caller a fresh budget: fifty
      // thousand IPv6 /64s from one host reset a signed-in user's spent one (outside probe, 2026-11-29).
      // A signed-in caller still gets a count of its own, up to twice the table: accounts are
      // made one sign-up at a time, and one account spending a shared count locked every new
      // account out (verification probe, 2026-11-29).
      const ownCount = caller.startsWith("sub:") && this.counts.size < 2 * this.maxKeys;
      if (this.counts.size >= this.maxKeys && !ownCount) return this.take(budget, newcomersOf(caller), now);
    }
    const previous = this.counts.get(previousKey) ?? 0;
    const current = this.counts.get(key) ?? 0;
    const overlap = 1 - (now % budget.windowMs) / budget.windowMs;
    const used = Math.floor(previous * overlap) + current;
    const resetAt = (window + 1) * budget.windowMs;
    if (used >= budget.limit) return { allowed: false, remaining: 0, resetAt };
    // Known callers go on counting past maxKeys (one key each per window); stale windows go at three times it.
    if (this.counts.size >= 3 * this.maxKeys) this.sweep(now, budget.windowMs);
    this.counts.set(key, current + 1);
    return { allowed: true, remaining: budget.limit - used - 1, resetAt };
  }

  /** Give back one request taken in the current window (it was refused by another budget). */
  refund(budget: Budget, caller: string, now = Date.now()): void {
    const window = Math.floor(now / budget.windowMs);
    let key = `${budget.name}\u0000${caller}\u0000${window}`;
    // A newcomer to a full table was counted with the others of its kind: give back there.
    if (!this.counts.has(key)) key = `${budget.name}\u0000${newcomersOf(caller)}\u0000${window}`;
    const current = this.counts.get(key) ?? 0;
    if (current > 0) this.counts.set(key, current - 1);
  }

  /** How many counters are kept (tests). */
  get size(): number {
    return this.counts.size;
  }

  /**
   * Drop windows older than the previous one, at most once a window: a flood of newcomers into a
   * full table must not cost a walk of it each.
   */
  private sweep(now: number, windowMs: number): void {
    const oldest = Math.floor(now / windowMs) - 1;
    if (oldest === this.swept) return;
    this.swept = oldest;
    for (const key of this.counts.keys()) {
      const window = Number(key.slice(key.lastIndexOf("\u0000") + 1));
      if (window < oldest) this.counts.delete(key);
    }
  }
}

/** Open streams per caller, in process. */
export class MemoryStreamSlots {
  private readonly open = new Map<string, number>();

  /** Whether acquire would succeed now. */
  free(caller: string, max: number): boolean {
    return (this.open.get(caller) ?? 0) < max;
  }

  acquire(caller: string, max: number): (() => void) | undefined {
    const now = this.open.get(caller) ?? 0;
    if (now >= max) return undefined;
    this.open.set(caller, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(caller) ?? 1) - 1;
      if (left <= 0) this.open.delete(caller);
      else this.open.set(caller, left);
    };
  }
}
