import { describe, expect, it } from "vitest";
import { StreamTable } from "../../lib/mcp/transport/resumable-streams";
import { StandaloneStreams } from "../../lib/mcp/transport/standalone-streams";

/**
 * A session's GET stream leaves the table when the session ends (lib/mcp/transport/session/state.ts
 * endSessionsHere drops it): a finished stream left there stayed for good, with its audience
 * reported present, one more per session a client opened and lost (review, 2026-11-28).
 */
describe("StandaloneStreams.drop", () => {
  it("removes the session's stream and its audience, and tells the audience is gone", () => {
    const events: string[] = [];
    const standalone = new StandaloneStreams({ opened: (a) => events.push(`opened ${a}`), closed: (a) => events.push(`closed ${a}`) });
    const table = new StreamTable({ maxEvents: 10, retentionMs: 1_000, resumeGraceMs: 1_000 });
    const stream = table.open("s1");
    standalone.set("s1", stream, "anon:s1");
    expect(standalone.entries().map(([id]) => id)).toEqual(["s1"]);

    standalone.drop("s1");
    expect(standalone.entries()).toEqual([]);
    expect(standalone.of("anon:s1")).toEqual([]);
    expect(events).toEqual(["opened anon:s1", "closed anon:s1"]);
    // Dropping a session with no stream is nothing.
    standalone.drop("s1");
    expect(events.length).toBe(2);
  });
});

/**
 * Across instances the newest GET stream of a session wins (standalone_opened on the bus). A
 * review found the first version silencing whichever stream the instance held, so two opened at
 * once (a reconnect the load balancer sent elsewhere) silenced each other, and a late message a
 * newer one. Older is by (openedAt, instance), an order every instance agrees on.
 */
describe("StandaloneStreams.supersede", () => {
  const table = new StreamTable({ maxEvents: 10, retentionMs: 1_000, resumeGraceMs: 1_000 });
  const held = () => {
    const standalone = new StandaloneStreams();
    const openedAt = standalone.set("s1", table.open("s1"), undefined);
    return { standalone, openedAt, kept: () => standalone.entries().length === 1 };
  };

  it("a stream opened later elsewhere silences the one here; one opened earlier does not", () => {
    const later = held();
    later.standalone.supersede("s1", later.openedAt + 1, "instance-b", "instance-a");
    expect(later.kept()).toBe(false);
    const earlier = held();
    earlier.standalone.supersede("s1", earlier.openedAt - 1, "instance-b", "instance-a");
    expect(earlier.kept()).toBe(true);
  });

  it("two opened in the same millisecond: exactly one of the two instances keeps its stream", () => {
    const onA = held();
    const onB = held();
    onA.standalone.supersede("s1", onA.openedAt, "instance-b", "instance-a");
    onB.standalone.supersede("s1", onA.openedAt, "instance-a", "instance-b");
    expect([onA.kept(), onB.kept()].filter(Boolean)).toHaveLength(1);
  });
});
