import type { StandaloneStreamNews } from "../cluster/cluster";
import type { LogicalStream } from "./resumable-streams";

/**
 * The GET streams of each session (basic/transports §listening for messages from the server):
 * where notifications not tied to a request go — list changes, resource updates. A client may
 * keep several open, and each message goes to one of them only, never broadcast (§multiple
 * connections: "The server MUST send each of its JSON-RPC messages on only one of the connected
 * streams"). Which one:
 *
 * - the newest stream a client is connected to (through any instance);
 * - when that one's client goes away and an older one is still connected, the older one, at
 *   once (an outside review found it silent for good, its messages kept for a resume of the
 *   newer one that might never come, then dropped);
 * - with no stream connected, the newest one still waiting for its client (within the resume
 *   grace period): its log keeps the messages for a resume with Last-Event-ID.
 *
 * Newer is by (openedAt, instance), an order every instance agrees on: each tells the others when
 * one of its streams connects, loses its client or ends (the bus), and every instance picks the
 * same stream from what it knows, delivering only when that stream is its own.
 *
 * Streams are also indexed by audience (the subject, or an anonymous session), for the named tool
 * events of seed 001 (tool-events.ts), looked up on every tool call; those too go only to the
 * stream that carries its session's messages.
 */

/** A stream's claim to its session's messages: a connected one first, then the newest. */
interface Rank {
  connected: boolean;
  openedAt: number;
  instance: string;
}

function outranks(a: Rank, b: Rank): boolean {
  if (a.connected !== b.connected) return a.connected;
  if (a.openedAt !== b.openedAt) return a.openedAt > b.openedAt;
  return a.instance > b.instance;
}

/** A GET stream of this instance. */
interface Held {
  stream: LogicalStream;
  audience: string | undefined;
  openedAt: number;
}

/** A GET stream of another instance, as last heard of. */
interface Heard extends Rank {
  heardAt: number;
}

export interface StandaloneOptions {
  /** This instance (cluster.ts INSTANCE_ID). */
  instance: string;
  /** Told when an audience's first stream here opens and its last one ends (audience-presence.ts). */
  audiences?: { opened(audience: string): void; closed(audience: string): void };
  /** Tells the other instances what became of a stream here (the bus); absent: nobody to tell. */
  tell?: (news: StandaloneStreamNews) => void;
  /**
   * A stream elsewhere not heard of for this long is taken as gone (its instance died without
   * saying): one that lives is heard of at least once per connection lifetime and grace period.
   */
  forgetAfterMs: number;
  now?: () => number;
}

export class StandaloneStreams {
  /** This instance's unfinished GET streams, by session, oldest first. */
  private readonly bySession = new Map<string, Held[]>();
  /** Other instances' unfinished GET streams, by session, then stream id. */
  private readonly elsewhere = new Map<string, Map<string, Heard>>();
  private readonly byAudience = new Map<string, Set<LogicalStream>>();
  /** Every stream that has been a GET stream here, with its session. Weak: forgotten with its log. */
  private readonly sessionOf = new WeakMap<LogicalStream, string>();
  private readonly now: () => number;
  private nextSweep = 0;

  constructor(private readonly options: StandaloneOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A new GET stream of the session; `audience`: whose tool runs it hears of. It is the newest:
   * opened after every stream of the session this instance knows of, whatever the clocks say.
   * Returns that place in the order.
   */
  set(sessionId: string, stream: LogicalStream, audience: string | undefined): number {
    const openedAt = Math.max(this.now(), this.newest(sessionId) + 1);
    const held: Held = { stream, audience, openedAt };
    const list = this.bySession.get(sessionId);
    if (list) list.push(held);
    else this.bySession.set(sessionId, [held]);
    this.sessionOf.set(stream, sessionId);
    if (audience) {
      const set = this.byAudience.get(audience) ?? new Set<LogicalStream>();
      set.add(stream);
      if (set.size === 1) {
        this.byAudience.set(audience, set);
        this.options.audiences?.opened(audience);
      }
    }
    stream.onConnectionChanged(() => this.tell(sessionId, held));
    stream.onFinished(() => this.release(sessionId, held));
    return openedAt;
  }

  /** The session ended: it has no GET streams any more, here or elsewhere. */
  drop(sessionId: string): void {
    this.elsewhere.delete(sessionId);
    for (const held of this.bySession.get(sessionId) ?? []) this.leaveAudience(held);
    this.bySession.delete(sessionId);
  }

  /**
   * The process is going down: every GET stream here ends, and the others hear so. Only closed,
   * a stream's client resumed it through another instance, which re-attached it while this one
   * drained; once it exited nobody said the stream was gone, and the others kept it as the
   * connected one, the session's messages reaching no stream for minutes (outside review).
   * Ended, a resume elsewhere replays it and opens a new stream there (get-stream.ts).
   */
  endAll(): void {
    for (const list of [...this.bySession.values()]) for (const held of [...list]) held.stream.finish();
  }

  /** The other instances that hold streams known here. */
  instancesElsewhere(): Set<string> {
    const instances = new Set<string>();
    for (const streams of this.elsewhere.values()) for (const heard of streams.values()) instances.add(heard.instance);
    return instances;
  }

  /** Forgets the streams of instances that are gone (killed: they said nothing, their liveness lapsed). */
  forgetInstances(gone: ReadonlySet<string>): void {
    if (gone.size === 0) return;
    for (const [sessionId, streams] of this.elsewhere) {
      for (const [id, heard] of streams) if (gone.has(heard.instance)) streams.delete(id);
      if (streams.size === 0) this.elsewhere.delete(sessionId);
    }
  }

  /** What another instance told of one of its streams. */
  heard(news: StandaloneStreamNews): void {
    const streams = this.elsewhere.get(news.sessionId);
    if (news.state === "ended") {
      streams?.delete(news.streamId);
      if (streams?.size === 0) this.elsewhere.delete(news.sessionId);
      return;
    }
    const heard: Heard = { connected: news.state === "connected", openedAt: news.openedAt, instance: news.instance, heardAt: this.now() };
    if (streams) streams.set(news.streamId, heard);
    else this.elsewhere.set(news.sessionId, new Map([[news.streamId, heard]]));
    this.sweep();
  }

  /** The stream here that carries the session's messages now; undefined when none does. */
  get(sessionId: string): LogicalStream | undefined {
    const list = this.bySession.get(sessionId);
    if (!list) return undefined;
    let best: Held | undefined;
    let bestRank: Rank | undefined;
    for (const held of list) {
      const rank = this.rank(held);
      if (!bestRank || outranks(rank, bestRank)) [best, bestRank] = [held, rank];
    }
    if (!best || !bestRank) return undefined;
    const streams = this.elsewhere.get(sessionId);
    if (streams) {
      const now = this.now();
      for (const [id, heard] of streams) {
        if (now - heard.heardAt > this.options.forgetAfterMs) streams.delete(id);
        else if (outranks(heard, bestRank)) return undefined;
      }
    }
    return best.stream;
  }

  /**
   * Whether `stream` was a GET stream here and does not carry its session's messages now
   * (another one does, or it has finished): a resume of it opens a new one (get-stream.ts).
   */
  superseded(stream: LogicalStream): boolean {
    const sessionId = this.sessionOf.get(stream);
    return sessionId !== undefined && this.get(sessionId) !== stream;
  }

  /** Each session's stream here that carries its messages. */
  entries(): [string, LogicalStream][] {
    const carriers: [string, LogicalStream][] = [];
    for (const sessionId of this.bySession.keys()) {
      const stream = this.get(sessionId);
      if (stream) carriers.push([sessionId, stream]);
    }
    return carriers;
  }

  /** The streams here of one audience that carry their sessions' messages. */
  of(audience: string): LogicalStream[] {
    const set = this.byAudience.get(audience);
    if (!set) return [];
    return [...set].filter((s) => {
      const sessionId = this.sessionOf.get(s);
      return sessionId !== undefined && this.get(sessionId) === s;
    });
  }

  private rank(held: Held): Rank {
    return { connected: held.stream.connected, openedAt: held.openedAt, instance: this.options.instance };
  }

  /** The latest openedAt of the session's streams known here (0: none). */
  private newest(sessionId: string): number {
    let newest = 0;
    for (const held of this.bySession.get(sessionId) ?? []) newest = Math.max(newest, held.openedAt);
    for (const heard of this.elsewhere.get(sessionId)?.values() ?? []) newest = Math.max(newest, heard.openedAt);
    return newest;
  }

  /** The others hear of it once its log is written, as a client does (its priming event names it). */
  private tell(sessionId: string, held: Held): void {
    const tell = this.options.tell;
    if (!tell) return;
    const { stream } = held;
    // The state when the message goes, not when it was queued: several queued say the latest.
    const say = () =>
      tell({
        sessionId,
        streamId: stream.id,
        openedAt: held.openedAt,
        instance: this.options.instance,
        state: stream.finished ? "ended" : stream.connected ? "connected" : "detached",
      });
    if (stream.logged) void stream.logged.then(say);
    else say();
  }

  /** The stream finished (given up after the grace period, or its session ended). */
  private release(sessionId: string, held: Held): void {
    const list = this.bySession.get(sessionId);
    const at = list?.indexOf(held) ?? -1;
    if (list && at >= 0) {
      list.splice(at, 1);
      if (list.length === 0) this.bySession.delete(sessionId);
    }
    this.leaveAudience(held);
    this.tell(sessionId, held);
  }

  private leaveAudience(held: Held): void {
    if (!held.audience) return;
    const set = this.byAudience.get(held.audience);
    if (!set?.delete(held.stream) || set.size > 0) return;
    this.byAudience.delete(held.audience);
    this.options.audiences?.closed(held.audience);
  }

  /** Forgets now and then the streams of instances that went silent, for sessions nobody asks about. */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.options.forgetAfterMs;
    for (const [sessionId, streams] of this.elsewhere) {
      for (const [id, heard] of streams) if (now - heard.heardAt > this.options.forgetAfterMs) streams.delete(id);
      if (streams.size === 0) this.elsewhere.delete(sessionId);
    }
  }
}
