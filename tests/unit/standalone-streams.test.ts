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
