import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterLifetime, everyPeriod } from "../../lib/mcp/transport/stream-clock";

/** The shared stream clock: every stream keeps its own cadence, and nothing ticks once all have stopped. */
describe("stream clock", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("beats each stream once a period, the first within a period of its start", () => {
    const a: number[] = [];
    const b: number[] = [];
    const stopA = everyPeriod(800, () => a.push(Date.now()));
    vi.advanceTimersByTime(300);
    const bStarted = Date.now();
    const stopB = everyPeriod(800, () => b.push(Date.now()));
    vi.advanceTimersByTime(4000);
    // One timer for both streams, not one each.
    expect(vi.getTimerCount()).toBe(1);
    expect(a.length).toBe(5);
    expect(b.length).toBeGreaterThanOrEqual(4);
    const firstGap = (b[0] as number) - bStarted;
    expect(firstGap).toBeGreaterThan(600);
    expect(firstGap).toBeLessThanOrEqual(800);
    for (const beats of [a, b]) for (let i = 1; i < beats.length; i++) expect((beats[i] as number) - (beats[i - 1] as number)).toBe(800);
    stopA();
    stopB();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops a stream's beats at once, the others' not", () => {
    const a = vi.fn();
    const b = vi.fn();
    const stopA = everyPeriod(100, a);
    const stopB = everyPeriod(100, b);
    vi.advanceTimersByTime(100);
    stopA();
    vi.advanceTimersByTime(500);
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(6);
    stopB();
    stopB();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a beat that stops its own stream, or another's, leaves the rest beating", () => {
    const calls: string[] = [];
    const stops: Record<string, () => void> = {};
    stops.a = everyPeriod(100, () => {
      calls.push("a");
      stops.a?.();
      stops.b?.();
    });
    stops.b = everyPeriod(100, () => calls.push("b"));
    stops.c = everyPeriod(100, () => calls.push("c"));
    vi.advanceTimersByTime(300);
    expect(calls).toEqual(["a", "c", "c", "c"]);
    stops.c();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never beats for a period of 0", () => {
    const beat = vi.fn();
    const stop = everyPeriod(0, beat);
    vi.advanceTimersByTime(10_000);
    expect(beat).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it("ends each lifetime once, when it is due, and none that was cancelled", () => {
    const ended: string[] = [];
    const t0 = Date.now();
    afterLifetime(1000, () => ended.push(`a@${Date.now() - t0}`));
    vi.advanceTimersByTime(400);
    const cancelB = afterLifetime(1000, () => ended.push("b"));
    afterLifetime(1000, () => ended.push(`c@${Date.now() - t0}`));
    afterLifetime(250, () => ended.push(`d@${Date.now() - t0}`));
    cancelB();
    vi.advanceTimersByTime(5000);
    expect(ended).toEqual(["d@650", "a@1000", "c@1400"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("drops its timer once every lifetime is cancelled", () => {
    const expire = vi.fn();
    const cancels = [afterLifetime(1000, expire), afterLifetime(1000, expire)];
    expect(vi.getTimerCount()).toBe(1);
    for (const cancel of cancels) cancel();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2000);
    expect(expire).not.toHaveBeenCalled();
  });
});
