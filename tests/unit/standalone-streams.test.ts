import { describe, expect, it } from "vitest";
import type { StandaloneStreamNews } from "../../lib/mcp/cluster/cluster";
import { StreamTable, type StreamSink } from "../../lib/mcp/transport/resumable-streams";
import { StandaloneStreams, type StandaloneOptions } from "../../lib/mcp/transport/standalone-streams";

// A long grace: a detached stream here stays until a test finishes it.
const table = new StreamTable({ maxEvents: 10, retentionMs: 1_000, resumeGraceMs: 60_000 });

function standaloneStreams(options: Partial<StandaloneOptions> = {}): StandaloneStreams {
  return new StandaloneStreams({ instance: "instance-a", forgetAfterMs: 10_000, ...options });
}

/** A GET stream of `session` with a client connected to it. */
function connected(standalone: StandaloneStreams, session = "s1", audience?: string) {
  const stream = table.open(session);
  const openedAt = standalone.set(session, stream, audience);
  let sink: StreamSink | undefined;
  const connect = () => {
    sink = { write: () => undefined, close: () => undefined };
    stream.attach(sink, 0);
  };
  connect();
  return {
    stream,
    openedAt,
    /** Its client goes away (the stream waits for a resume). */
    leave: () => sink && stream.detach(sink),
    /** Its client comes back (a resume within the grace period). */
    connect,
  };
}

const news = (over: Partial<StandaloneStreamNews>): StandaloneStreamNews => ({
  sessionId: "s1",
  streamId: "elsewhere-1",
  openedAt: 0,
  instance: "instance-b",
  state: "connected",
  ...over,
});

/**
 * A session's GET stream leaves the table when the session ends (lib/mcp/transport/session/state.ts
 * endSessionsHere drops it): a finished stream left there stayed for good, with its audience
 * reported present, one more per session a client opened and lost (review, 2026-11-28).
 */
describe("StandaloneStreams.drop", () => {
  it("removes the session's stream and its audience, and tells the audience is gone", () => {
    const events: string[] = [];
    const standalone = standaloneStreams({ audiences: { opened: (a) => events.push(`opened ${a}`), closed: (a) => events.push(`closed ${a}`) } });
    const stream = table.open("s1");
    standalone.set("s1", stream, "anon:s1");
    expect(standalone.entries().map(([id]) => id)).toEqual(["s1"]);

    standalone.drop("s1");
    expect(standalone.entries()).toEqual([]);
    expect(standalone.of("anon:s1")).toEqual([]);
    expect(events).toEqual(["opened anon:s1", "closed anon:s1"]);
    // Dropping a session with no stream is nothing; nor is the dropped stream finishing later.
    standalone.drop("s1");
    stream.finish();
    expect(events.length).toBe(2);
  });
});

/**
 * basic/transports §multiple connections: each message on only one of the connected streams. An
 * outside review found an older stream, still connected, silent for good once a newer one had
 * opened: with the newer one's client gone, messages went to its resume log, then nowhere.
 */
describe("which GET stream of a session carries its messages", () => {
  it("the newest connected one; when its client goes, an older connected one at once; back again on its resume", () => {
    const standalone = standaloneStreams();
    const older = connected(standalone);
    const newer = connected(standalone);
    expect(standalone.get("s1")).toBe(newer.stream);
    newer.leave();
    expect(standalone.get("s1")).toBe(older.stream);
    expect(standalone.entries()).toEqual([["s1", older.stream]]);
    newer.connect();
    expect(standalone.get("s1")).toBe(newer.stream);
  });

  it("with none connected, the newest one waiting for its client (its log keeps them); a finished one never", () => {
    const standalone = standaloneStreams();
    const older = connected(standalone);
    const newer = connected(standalone);
    older.leave();
    newer.leave();
    expect(standalone.get("s1")).toBe(newer.stream);
    newer.stream.finish();
    expect(standalone.get("s1")).toBe(older.stream);
    older.stream.finish();
    expect(standalone.get("s1")).toBeUndefined();
    expect(standalone.entries()).toEqual([]);
  });

  it("a stream that does not carry them is superseded: a resume of it opens a new one", () => {
    const standalone = standaloneStreams();
    const older = connected(standalone);
    const newer = connected(standalone);
    expect(standalone.superseded(older.stream)).toBe(true);
    expect(standalone.superseded(newer.stream)).toBe(false);
    newer.leave();
    expect(standalone.superseded(older.stream)).toBe(false);
    expect(standalone.superseded(newer.stream)).toBe(true);
    older.stream.finish();
    expect(standalone.superseded(older.stream)).toBe(true);
    // A stream that never was a GET stream here (a POST's) is not.
    expect(standalone.superseded(table.open("s1"))).toBe(false);
  });

  it("the named tool events go to the stream that carries the session's messages, if it asked for them", () => {
    const events: string[] = [];
    const standalone = standaloneStreams({ audiences: { opened: (a) => events.push(`opened ${a}`), closed: (a) => events.push(`closed ${a}`) } });
    const named = connected(standalone, "s1", "sub:alice");
    const plain = connected(standalone, "s1");
    expect(standalone.of("sub:alice")).toEqual([]);
    plain.leave();
    expect(standalone.of("sub:alice")).toEqual([named.stream]);
    named.stream.finish();
    expect(standalone.of("sub:alice")).toEqual([]);
    expect(events).toEqual(["opened sub:alice", "closed sub:alice"]);
  });
});

/**
 * Across instances: each tells the others (standalone_stream on the bus) when one of its streams
 * connects, loses its client or ends, and all pick the same stream, by (connected, openedAt,
 * instance). A review found the first version silencing whichever stream an instance held, so two
 * opened at once (a reconnect the load balancer sent elsewhere) silenced each other, and a late
 * message a newer one.
 */
describe("GET streams of a session on two instances", () => {
  it("a newer connected stream elsewhere carries them; when its client goes, the one here does again", () => {
    const standalone = standaloneStreams();
    const here = connected(standalone);
    standalone.heard(news({ openedAt: here.openedAt + 1 }));
    expect(standalone.get("s1")).toBeUndefined();
    standalone.heard(news({ openedAt: here.openedAt + 1, state: "detached" }));
    expect(standalone.get("s1")).toBe(here.stream);
    standalone.heard(news({ openedAt: here.openedAt + 1 }));
    standalone.heard(news({ openedAt: here.openedAt + 1, state: "ended" }));
    expect(standalone.get("s1")).toBe(here.stream);
  });

  it("an older stream elsewhere does not, unless it is connected and the one here is not", () => {
    const standalone = standaloneStreams();
    const here = connected(standalone);
    standalone.heard(news({ openedAt: here.openedAt - 1 }));
    expect(standalone.get("s1")).toBe(here.stream);
    // Only one log keeps a message while no stream is connected, and none while one is.
    here.leave();
    expect(standalone.get("s1")).toBeUndefined();
    standalone.heard(news({ openedAt: here.openedAt - 1, state: "detached" }));
    expect(standalone.get("s1")).toBe(here.stream);
  });

  it("two opened in the same millisecond: exactly one of the two instances carries them", () => {
    const now = () => 1_000;
    const onA = standaloneStreams({ instance: "instance-a", now });
    const onB = standaloneStreams({ instance: "instance-b", now });
    const a = connected(onA);
    const b = connected(onB);
    expect(a.openedAt).toBe(b.openedAt);
    onA.heard(news({ streamId: b.stream.id, openedAt: b.openedAt, instance: "instance-b" }));
    onB.heard(news({ streamId: a.stream.id, openedAt: a.openedAt, instance: "instance-a" }));
    expect([onA.get("s1"), onB.get("s1")].filter(Boolean)).toHaveLength(1);
  });

  it("a stream opened here is newer than every one it has heard of, whatever the clocks say", () => {
    const standalone = standaloneStreams({ now: () => 1_000 });
    standalone.heard(news({ openedAt: 5_000 }));
    const here = connected(standalone);
    expect(here.openedAt).toBeGreaterThan(5_000);
    expect(standalone.get("s1")).toBe(here.stream);
  });

  it("a stream elsewhere not heard of for forgetAfterMs is taken as gone (its instance died)", () => {
    let clock = 1_000;
    const standalone = standaloneStreams({ now: () => clock, forgetAfterMs: 10_000 });
    const here = connected(standalone);
    standalone.heard(news({ openedAt: here.openedAt + 1 }));
    clock += 10_000;
    expect(standalone.get("s1")).toBeUndefined();
    clock += 1;
    expect(standalone.get("s1")).toBe(here.stream);
  });

  it("tells the others when a stream here connects, loses its client and ends", () => {
    const told: StandaloneStreamNews[] = [];
    const standalone = standaloneStreams({ tell: (n) => told.push(n) });
    const here = connected(standalone, "s1");
    here.leave();
    here.connect();
    here.leave();
    // Its client resumed it through another instance (cluster-streams.ts), then left again.
    here.stream.attachedElsewhere();
    here.stream.detachedElsewhere();
    here.stream.finish();
    expect(told.map((n) => n.state)).toEqual(["connected", "detached", "connected", "detached", "connected", "detached", "ended"]);
    expect(told[0]).toEqual({ sessionId: "s1", streamId: here.stream.id, openedAt: here.openedAt, instance: "instance-a", state: "connected" });
  });
});
