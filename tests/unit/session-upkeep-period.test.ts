import { describe, expect, it } from "vitest";
import { upkeepPeriodMs } from "../../lib/mcp/transport/session/session-upkeep";

/**
 * An open GET stream looks after its session every upkeepPeriodMs: that period bounds how long a
 * stream whose session is gone from the store goes on (tests/scale-out/session-upkeep.test.ts
 * shows the end itself with a 60 s TTL). An outside review found the default 24 h TTL giving a
 * 10-minute period, longer than a stream's 280 s lifetime: the check never ran.
 */
describe("upkeepPeriodMs", () => {
  it("is a quarter of a short TTL", () => {
    expect(upkeepPeriodMs(60_000)).toBe(15_000);
    expect(upkeepPeriodMs(1_000)).toBe(1_000);
  });

  it("is at most 30 s, well inside a stream's default 280 s lifetime, whatever the TTL", () => {
    for (const ttlSeconds of [120, 3_600, 24 * 3_600, 7 * 24 * 3_600]) expect(upkeepPeriodMs(ttlSeconds * 1_000)).toBe(30_000);
  });
});
