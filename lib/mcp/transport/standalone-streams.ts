import type { LogicalStream } from "./resumable-streams";

/**
 * The GET stream of each session (basic/transports §listening for messages from the server):
 * where notifications not tied to a request go — list changes, resource updates. A session's
 * newest stream receives them; a message goes to one stream only, never broadcast (§multiple
 * connections). Streams are also indexed by audience (the subject, or an anonymous session), for
 * the named tool events of seed 001 (tool-events.ts), looked up on every tool call.
 */
export class StandaloneStreams {
  private readonly bySession = new Map<string, { stream: LogicalStream; audience: string | undefined; openedAt: number }>();
  private readonly byAudience = new Map<string, Set<LogicalStream>>();
  /**
   * Streams that were their session's GET stream and are no longer (replaced by a newer one,
   * here or on another instance, or given up after the grace period): nothing reaches them any
   * more, so a resume of one opens the session's GET stream instead (get-stream.ts). Weak: a
   * stream is forgotten with its log.
   */
  private readonly former = new WeakSet<LogicalStream>();

  /** `audiences`: told when an audience's first stream here opens and its last one ends (audience-presence.ts). */
  constructor(private readonly audiences?: { opened(audience: string): void; closed(audience: string): void }) {}

  /** `audience`: whose tool runs this stream hears of. Returns when it opened (standalone_opened's openedAt). */
  set(sessionKey: string, stream: LogicalStream, audience: string | undefined): number {
    const previous = this.bySession.get(sessionKey);
    if (previous) this.retire(previous.stream, previous.audience);
    const openedAt = Date.now();
    this.bySession.set(sessionKey, { stream, audience, openedAt });
    if (audience) {
      const set = this.byAudience.get(audience) ?? new Set<LogicalStream>();
      set.add(stream);
      if (set.size === 1) {
        this.byAudience.set(audience, set);
        this.audiences?.opened(audience);
      }
    }
    return openedAt;
  }

  /** The session ended: it has no GET stream any more (a finished one left here would stay for good). */
  drop(sessionKey: string): void {
    const entry = this.bySession.get(sessionKey);
    if (!entry) return;
    this.bySession.delete(sessionKey);
    this.retire(entry.stream, entry.audience);
  }

  /**
   * A GET stream of the session opened on instance `there` at `openedAt`: the one here, if older
   * by (openedAt, instance), stops receiving (open, silent, as one replaced here is); without it
   * every instance holding one delivered each message.
   */
  supersede(sessionKey: string, openedAt: number, there: string, here: string): void {
    const entry = this.bySession.get(sessionKey);
    if (!entry) return;
    const older = entry.openedAt < openedAt || (entry.openedAt === openedAt && here < there);
    if (older) this.drop(sessionKey);
  }

  remove(sessionKey: string, stream: LogicalStream): void {
    const entry = this.bySession.get(sessionKey);
    if (entry?.stream !== stream) return;
    this.bySession.delete(sessionKey);
    this.retire(stream, entry.audience);
  }

  /** Whether `stream` was its session's GET stream and no longer is. */
  isFormer(stream: LogicalStream): boolean {
    return this.former.has(stream);
  }

  get(sessionKey: string): LogicalStream | undefined {
    const entry = this.bySession.get(sessionKey);
    if (entry?.stream.finished) {
      this.remove(sessionKey, entry.stream);
      return undefined;
    }
    return entry?.stream;
  }

  entries(): [string, LogicalStream][] {
    return [...this.bySession.entries()].filter(([, e]) => !e.stream.finished).map(([id, e]) => [id, e.stream]);
  }

  /** The open streams of one audience (finished ones are dropped on the way). */
  of(audience: string): LogicalStream[] {
    const set = this.byAudience.get(audience);
    if (!set) return [];
    const open: LogicalStream[] = [];
    for (const s of set) {
      if (s.finished) set.delete(s);
      else open.push(s);
    }
    if (set.size === 0) this.dropAudience(audience);
    return open;
  }

  /** The stream is no longer its session's GET stream. */
  private retire(stream: LogicalStream, audience: string | undefined): void {
    this.former.add(stream);
    if (!audience) return;
    const set = this.byAudience.get(audience);
    set?.delete(stream);
    if (set?.size === 0) this.dropAudience(audience);
  }

  private dropAudience(audience: string): void {
    this.byAudience.delete(audience);
    this.audiences?.closed(audience);
  }
}
