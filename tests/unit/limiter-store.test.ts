import { describe, expect, it } from "vitest";
import type { Budget } from "../../lib/ratelimit/budgets";
import { MemoryWindows } from "../../lib/ratelimit/memory-limiter";
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

// Outside probe (2026-11-29): the in-process table cleared itself when full, so fifty thousand
// IPv6 /64s from one host gave a signed-in user back the budget she had spent.
describe("the in-process counters when the table is full", () => {
  const list: Budget = { name: "tools-list", limit: 5, windowMs: 3_600_000 };

  it("keep every known caller's count; callers new to a full table share one budget", () => {
    const windows = new MemoryWindows(1_000);
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    for (let i = 0; i < 5; i++) expect(windows.take(list, "sub:gina", now).allowed).toBe(true);
    expect(windows.take(list, "sub:gina", now).allowed).toBe(false);
    // A flood of callers, each new: the table fills, then they are counted together.
    const flood = Array.from({ length: 5_000 }, (_, i) => windows.take(list, `ip:2001:db8:abcd:${i.toString(16)}::`, now + i));
    expect(flood.filter((d) => d.allowed).length).toBeLessThanOrEqual(999 + list.limit);
    expect(windows.size).toBeLessThanOrEqual(1_001);
    // Her budget is still spent; a caller admitted before the table filled still has its own.
    expect(windows.take(list, "sub:gina", now + 10_000).allowed).toBe(false);
    expect(windows.take(list, "ip:2001:db8:abcd:1::", now + 10_000)).toMatchObject({ allowed: true, remaining: 3 });
    // Signed-in newcomers each count on their own, whatever the flood (verification probes,
    // 2026-11-29): one account spending a shared count locked out every account new after it.
    for (let i = 0; i < list.limit; i++) expect(windows.take(list, "sub:mal", now + 10_000).allowed).toBe(true);
    expect(windows.take(list, "sub:mal", now + 10_000).allowed).toBe(false);
    expect(windows.take(list, "sub:hank", now + 10_000)).toMatchObject({ allowed: true, remaining: list.limit - 1 });

    // In the next window the known go on, whatever the table's size.
    const later = now + list.windowMs;
    expect(windows.take(list, "ip:2001:db8:abcd:2::", later).allowed).toBe(true);
  });

  it("gives a newcomer's refund back to the shared count it was taken from", () => {
    const windows = new MemoryWindows(10);
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    for (let i = 0; i < 10; i++) windows.take(list, `ip:10.0.0.${i}`, now);
    expect(windows.take(list, "ip:10.9.9.9", now).allowed).toBe(true);
    windows.refund(list, "ip:10.9.9.9", now);
    const newcomers = Array.from({ length: list.limit + 1 }, (_, i) => windows.take(list, `ip:10.8.8.${i}`, now).allowed);
    expect(newcomers).toEqual([...Array<boolean>(list.limit).fill(true), false]);
  });
});

