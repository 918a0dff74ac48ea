import type { RateLimitDecision, StreamSlot } from "../mcp/policy/rate-limit";
import type { Budget } from "./budgets";
import { MemoryStreamSlots, MemoryWindows } from "./memory-limiter";

/** Where budgets are counted: in this process, or in Redis (redis-store.ts). */
export interface Store {
  take(budget: Budget, caller: string): RateLimitDecision | Promise<RateLimitDecision>;
  /** Undo one take (another budget refused the request). */
  refund(budget: Budget, caller: string): void | Promise<void>;
  openStream(caller: string, max: number): Promise<StreamSlot | undefined> | StreamSlot | undefined;
  /** Whether openStream would grant a slot now; takes none. */
  streamSlotFree(caller: string, max: number): Promise<boolean> | boolean;
}

/** Counts in this process: synchronous, so a request limited in memory awaits nothing. */
export function memoryStore(): Store {
  const windows = new MemoryWindows();
  const slots = new MemoryStreamSlots();
  return {
    take(budget, caller) {
      const counted = windows.take(budget, caller);
      return { allowed: counted.allowed, limit: budget.limit, remaining: counted.remaining, resetAt: counted.resetAt };
    },
    refund: (budget, caller) => windows.refund(budget, caller),
    openStream(caller, max) {
      const release = slots.acquire(caller, max);
      return release ? { release } : undefined;
    },
    streamSlotFree: (caller, max) => slots.free(caller, max),
  };
}

/**
 * A store built on first use (the Redis clients and @upstash/ratelimit are loaded then, not at
 * start-up). A failed load rejects that request's take, which the failure policy handles, and
 * the next request tries again.
 */
export function storeOnFirstUse(load: () => Promise<Store>): Store {
  let loaded: Store | undefined;
  let loading: Promise<Store> | undefined;
  const store = (): Store | Promise<Store> =>
    loaded ??
    (loading ??= load().then(
      (made) => (loaded = made),
      (thrown: unknown) => {
        loading = undefined;
        throw thrown;
      },
    ));
  const use = <T>(run: (s: Store) => T | Promise<T>): T | Promise<T> => {
    const s = store();
    return s instanceof Promise ? s.then(run) : run(s);
  };
  return {
    take: (budget, caller) => use((s) => s.take(budget, caller)),
    refund: (budget, caller) => use((s) => s.refund(budget, caller)),
    openStream: (caller, max) => use((s) => s.openStream(caller, max)),
    streamSlotFree: (caller, max) => use((s) => s.streamSlotFree(caller, max)),
  };
}
