import { describe, expect, it } from "vitest";
import type { Budget } from "../../lib/ratelimit/budgets";
import { memoryStore, storeOnFirstUse, type Store } from "../../lib/ratelimit/store";

const budget: Budget = { name: "tools-call", limit: 2, windowMs: 60_000 };

describe("a rate-limit store loaded on first use", () => {
  it("is not loaded until the first take, and is loaded once", async () => {
    let loads = 0;
    const store = storeOnFirstUse(async () => {
      loads++;
      return memoryStore();
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([store.take(budget, "alice"), store.take(budget, "alice")]);
    expect(loads).toBe(1);
    expect([a.remaining, b.remaining].sort()).toEqual([0, 1]);
    // Once loaded, answers come straight from the store (no promise for a synchronous one).
    const third = store.take(budget, "alice");
    expect(third).not.toBeInstanceOf(Promise);
    expect((third as Awaited<typeof third>).allowed).toBe(false);
  });

  it("rejects that take when loading fails, and tries again on the next", async () => {
    let attempt = 0;
    const store = storeOnFirstUse(async (): Promise<Store> => {
      if (++attempt === 1) throw new Error("cannot load the Redis client");
      return memoryStore();
    });
    await expect(store.take(budget, "bob")).rejects.toThrow("cannot load the Redis client");
    await expect(store.take(budget, "bob")).resolves.toMatchObject({ allowed: true, remaining: 1 });
    expect(attempt).toBe(2);
  });
});
