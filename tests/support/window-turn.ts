/**
 * Rate-limit windows are aligned to the epoch (lib/ratelimit/memory-limiter.ts, and
 * @upstash/ratelimit's slidingWindow alike). Just after a window turns, the sliding estimate
 * counts floor(previous × overlap) of the last window, one less than was spent, so a burst that
 * straddles a turn sees one request more pass. A test that counts a budget exactly starts its
 * burst where the window has room left for it.
 */
export async function clearOfWindowTurn(windowMs: number, burstMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < burstMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
