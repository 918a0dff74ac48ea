import { INSTANCE_ID, type ClusterBus, type ClusterMessage } from "./cluster";

/** How often an instance repeats the audiences it holds, so that the others' leases on them hold. */
const REFRESH_MS = 10_000;
/** An audience not repeated for this long is taken as gone (its instance died without saying so). */
const LEASE_MS = 3 * REFRESH_MS;
/** After joining the bus and asking, how long the others have to answer before silence means "nobody". */
const ANSWER_MS = 1_000;
/** Audiences per message, so that one instance holding many streams never sends one huge message. */
const CHUNK = 500;

/**
 * Which audiences (tool-events.ts: a subject, or an anonymous session) have a GET stream asking
 * for named events open on another instance, learnt over the bus, so that a tool run publishes
 * its events only when someone elsewhere may hear them instead of on every call.
 *
 * Each instance says which audiences it holds: when its first stream of one opens, when its last
 * closes, every REFRESH_MS (so a dead instance's lapse), and when a new instance asks. An
 * instance that has not yet joined the bus and heard the answers cannot know, and answers "may
 * listen"; so does one whose subscription failed. Errors only ever err towards publishing.
 */
export class AudiencePresence {
  /** Audiences with a stream on this instance. */
  private readonly here = new Set<string>();
  /** Audiences with a stream elsewhere: audience → instance → when its lease ends. */
  private readonly elsewhere = new Map<string, Map<string, number>>();
  /** Before this time this instance cannot know who listens elsewhere. */
  private knownFrom = Number.POSITIVE_INFINITY;
  private nextSweep = 0;
  private refresh: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly bus: ClusterBus,
    private readonly now: () => number = Date.now,
  ) {
    bus.subscribe((message) => this.hear(message));
    void bus.joined().then((joined) => {
      if (!joined) return;
      bus.publish({ kind: "audiences_asked" });
      this.knownFrom = this.now() + ANSWER_MS;
    });
  }

  /** The first stream of `audience` opened on this instance. */
  opened(audience: string): void {
    this.here.add(audience);
    this.announce([audience]);
    this.refresh ??= setInterval(() => this.announce([...this.here]), REFRESH_MS);
    this.refresh.unref?.();
  }

  /** The last stream of `audience` on this instance ended. */
  closed(audience: string): void {
    if (!this.here.delete(audience)) return;
    this.bus.publish({ kind: "audience_left", instance: INSTANCE_ID, audience });
    if (this.here.size === 0 && this.refresh) {
      clearInterval(this.refresh);
      this.refresh = undefined;
    }
  }

  /** Whether a stream of `audience` may be open on another instance. */
  mayListenElsewhere(audience: string): boolean {
    const now = this.now();
    if (now < this.knownFrom) return true;
    const holders = this.elsewhere.get(audience);
    if (!holders) return false;
    for (const [instance, until] of holders) {
      if (until > now) return true;
      holders.delete(instance);
    }
    this.elsewhere.delete(audience);
    return false;
  }

  private announce(audiences: string[]): void {
    for (let i = 0; i < audiences.length; i += CHUNK) {
      this.bus.publish({ kind: "audiences", instance: INSTANCE_ID, audiences: audiences.slice(i, i + CHUNK), leaseMs: LEASE_MS });
    }
  }

  private hear(message: ClusterMessage): void {
    if (message.kind === "audiences_asked") {
      if (this.here.size > 0) this.announce([...this.here]);
    } else if (message.kind === "audiences") {
      const until = this.now() + message.leaseMs;
      for (const audience of message.audiences) {
        const holders = this.elsewhere.get(audience) ?? new Map<string, number>();
        holders.set(message.instance, until);
        this.elsewhere.set(audience, holders);
      }
      this.sweep();
    } else if (message.kind === "audience_left") {
      const holders = this.elsewhere.get(message.audience);
      holders?.delete(message.instance);
      if (holders?.size === 0) this.elsewhere.delete(message.audience);
    }
  }

  /** Drops lapsed leases now and then, so audiences nobody asks about do not pile up. */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + LEASE_MS;
    for (const [audience, holders] of this.elsewhere) {
      for (const [instance, until] of holders) if (until <= now) holders.delete(instance);
      if (holders.size === 0) this.elsewhere.delete(audience);
    }
  }
}
