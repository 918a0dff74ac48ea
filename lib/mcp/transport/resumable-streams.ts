import { randomBytes } from "node:crypto";
import type { JsonRpcId } from "../../jsonrpc";
import { encodeSse, encodeSseComment } from "./sse";
import { afterLifetime, everyPeriod } from "./stream-clock";

/**
 * Logical SSE streams that outlive their HTTP connections (basic/transports §resumability and
 * redelivery). Every event gets an id `<streamId>_<seq>`; events are kept for a while so a client
 * that reconnects with Last-Event-ID — on purpose (SSE polling) or after a network drop — gets
 * what it missed on a new GET, and then the rest as it happens.
 *
 * With a cluster (lib/mcp/cluster/cluster.ts), resumable streams are mirrored: every event goes to the
 * shared log and the bus, so a client may come back on any instance (remote-stream.ts), and a
 * reconnection elsewhere stops this instance's grace timer instead of abandoning the work.
 */

/** Where an attached HTTP response writes. */
export interface StreamSink {
  write(chunk: Uint8Array): void;
  close(): void;
}

interface LoggedEvent {
  seq: number;
  data: string;
}

/** What a mirror needs of a stream: which one, whose, and which requests it answers. */
export type MirroredStream = Pick<LogicalStream, "id" | "sessionId" | "requestIds">;

/** Where a resumable stream's events are copied for the other instances. */
export interface StreamMirror {
  /** Settles once the shared log knows the stream (never rejects: a failed write is logged). */
  opened(stream: MirroredStream): Promise<void>;
  /** An id was issued: with the message to replay, or without (a named event, never replayed). */
  event(stream: MirroredStream, seq: number, data: string | undefined): void;
  finished(stream: MirroredStream): void;
  /**
   * A client came back to the stream here (a resume): its connections through other instances
   * end, as a local one does (basic/transports §multiple connections: each message on one
   * connection only).
   */
  attached(stream: MirroredStream): void;
}

export interface StreamOptions {
  /** Events kept for replay per stream; older ones are dropped first. */
  maxEvents: number;
  /** How long a finished or orphaned stream stays resumable. */
  retentionMs: number;
  /** A detached, unfinished stream is abandoned (its work aborted) after this long without a reconnect. */
  resumeGraceMs: number;
}

export class LogicalStream {
  private seq = 0;
  private readonly events: LoggedEvent[] = [];
  /** The seq of the newest event dropped from `events` (it keeps the last maxEvents), 0 before any. */
  private droppedThrough = 0;
  private sink: StreamSink | undefined;
  private done = false;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private abandonHandlers: (() => void)[] = [];
  private finishHandlers: (() => void)[] = [];
  private connectionHandlers: (() => void)[] = [];
  /** A client is connected to this stream through another instance. */
  private remotelyAttached = false;
  /** A connection was attached before: the next attach is a resume. */
  private everAttached = false;
  /**
   * With a cluster: settles once the shared log knows this stream. Its id reaches the client in
   * the first event (the priming one), and a client that resumes on another instance right
   * away must find it there, so no response shows a stream before this settles.
   */
  readonly logged: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly sessionId: string | undefined,
    private readonly options: StreamOptions,
    private readonly forget: (stream: LogicalStream) => void,
    /**
     * false for 2026-07-28 streams: no event ids, nothing kept, and a closed connection is the
     * end of the request (basic/transports: closing the stream cancels).
     */
    readonly resumable = true,
    private readonly mirror?: StreamMirror,
    /**
     * The requests whose answers this stream carries (a POST's; none for a GET stream): should
     * this instance die, a client following the stream elsewhere is answered for each
     * (cluster-streams.ts).
     */
    readonly requestIds: readonly JsonRpcId[] = [],
  ) {
    this.logged = resumable ? mirror?.opened(this) : undefined;
  }

  get finished(): boolean {
    return this.done;
  }

  /** How long a detached stream waits for its client before it is abandoned. */
  get resumeGraceMs(): number {
    return this.options.resumeGraceMs;
  }

  get attached(): boolean {
    return this.sink !== undefined;
  }

  /** A client reads this stream now, through this instance or another. */
  get connected(): boolean {
    return this.sink !== undefined || this.remotelyAttached;
  }

  /** The id a priming event carries: the position before the next event. */
  currentEventId(): string {
    return `${this.id}_${this.seq}`;
  }

  /**
   * Whether `seq` is a position this stream has given out (an event id, or the priming one before
   * it). Ids are a cursor within their stream (basic/transports §resumability): one beyond the
   * last is no place in it, and resuming there would replay nothing and then count on below it.
   */
  issued(seq: number): boolean {
    return seq <= this.seq;
  }

  /**
   * Whether every event after `seq` is still kept: resuming from an older id would skip the
   * dropped ones without a word (outside probe, 2026-11-29: 50 updates lost, answered 200).
   */
  keepsAfter(seq: number): boolean {
    return seq >= this.droppedThrough;
  }

  onAbandoned(handler: () => void): void {
    this.abandonHandlers.push(handler);
  }

  /** Called once when the stream finishes, however it ends (at once if it has). */
  onFinished(handler: () => void): void {
    if (this.done) handler();
    else this.finishHandlers.push(handler);
  }

  /** Called each time `connected` changes while the stream is unfinished (standalone-streams.ts). */
  onConnectionChanged(handler: () => void): void {
    if (!this.done) this.connectionHandlers.push(handler);
  }

  /** Append a JSON-RPC message (or a named event) and deliver it if a connection is attached. */
  write(data: string, event?: string): void {
    if (this.done) return;
    if (!this.resumable) {
      this.sink?.write(encodeSse(event === undefined ? { data } : { event, data }));
      return;
    }
    const seq = ++this.seq;
    if (event === undefined) {
      this.events.push({ seq, data });
      if (this.events.length > this.options.maxEvents) this.droppedThrough = this.events.shift()!.seq;
    }
    // A named event's id is issued too: another instance must know it to resume from it.
    this.mirror?.event(this, seq, event === undefined ? data : undefined);
    this.sink?.write(encodeSse({ id: `${this.id}_${seq}`, data, ...(event === undefined ? {} : { event }) }));
  }

  comment(text: string): void {
    this.sink?.write(encodeSseComment(text));
  }

  /** Attach a connection, replaying events after `afterSeq`. A finished stream replays and closes. */
  attach(sink: StreamSink, afterSeq: number, prime?: { retryMs: number }): void {
    const was = this.connected;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.remotelyAttached = false;
    this.sink?.close();
    this.sink = sink;
    const resumed = this.everAttached;
    this.everAttached = true;
    if (prime) sink.write(encodeSse({ id: this.currentEventId(), retry: prime.retryMs, data: "" }));
    this.replayTo(sink, afterSeq);
    if (this.done) {
      this.closeSink();
      return;
    }
    if (resumed && this.resumable) this.mirror?.attached(this);
    this.connectionChanged(was);
  }

  /** Write the kept events after `afterSeq` to `sink`, with their ids, without attaching it. */
  replayTo(sink: StreamSink, afterSeq: number): void {
    for (const e of this.events) if (e.seq > afterSeq) sink.write(encodeSse({ id: `${this.id}_${e.seq}`, data: e.data }));
  }

  /** The connection went away (client closed it, or we closed it to make the client poll). */
  detach(sink: StreamSink): void {
    if (this.sink !== sink) return;
    this.sink = undefined;
    if (this.done) return;
    if (!this.resumable) {
      this.abandon();
      return;
    }
    if (!this.remotelyAttached) this.startGrace();
    this.connectionChanged(true);
  }

  /**
   * The client reconnected through another instance: not abandoned while it stays there, and its
   * connection here, if it kept one open, ends, as attach() ends it for a resume here. Left open,
   * it carried every later message a second time (outside probe, 2026-11-29).
   */
  attachedElsewhere(): void {
    const was = this.connected;
    this.remotelyAttached = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.closeSink();
    this.connectionChanged(was);
  }

  /** That connection ended: wait for the client again, as after a local disconnect. */
  detachedElsewhere(): void {
    const was = this.connected;
    this.remotelyAttached = false;
    if (!this.done && !this.sink) this.startGrace();
    this.connectionChanged(was);
  }

  private connectionChanged(was: boolean): void {
    if (this.done || this.connected === was) return;
    for (const h of this.connectionHandlers) h();
  }

  private startGrace(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => this.abandon(), this.options.resumeGraceMs);
    this.graceTimer.unref?.();
  }

  /** Close the current connection but keep the stream resumable (SSE polling). */
  disconnect(): void {
    const sink = this.sink;
    if (!sink) return;
    this.detach(sink);
    sink.close();
  }

  /** No more events: close the connection, keep the log for late resumers until retention ends. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    const finished = this.finishHandlers;
    this.finishHandlers = [];
    this.connectionHandlers = [];
    for (const h of finished) h();
    if (this.resumable) this.mirror?.finished(this);
    this.closeSink();
    if (!this.resumable) {
      this.forget(this);
      return;
    }
    const timer = setTimeout(() => this.forget(this), this.options.retentionMs);
    timer.unref?.();
  }

  private closeSink(): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
  }

  private abandon(): void {
    this.graceTimer = undefined;
    const handlers = this.abandonHandlers;
    this.abandonHandlers = [];
    for (const h of handlers) h();
    this.finish();
  }
}

export class StreamTable {
  private readonly streams = new Map<string, LogicalStream>();

  constructor(
    private readonly options: StreamOptions,
    private readonly mirror?: StreamMirror,
  ) {}

  open(sessionId: string | undefined, resumable = true, requestIds: readonly JsonRpcId[] = []): LogicalStream {
    const id = randomBytes(12).toString("base64url");
    const stream = new LogicalStream(id, sessionId, this.options, (s) => this.streams.delete(s.id), resumable, this.mirror, requestIds);
    if (resumable) this.streams.set(id, stream);
    return stream;
  }

  /** A stream this instance owns, by id. */
  get(id: string): LogicalStream | undefined {
    return this.streams.get(id);
  }

  /** Finish every stream of these sessions (ended), in one pass. */
  closeSessions(sessionIds: ReadonlySet<string>): void {
    for (const s of this.streams.values()) if (s.sessionId !== undefined && sessionIds.has(s.sessionId)) s.finish();
  }
}

const PING = encodeSse({ event: "ping", data: "{}" });
const KEEP_ALIVE = encodeSseComment("keep-alive");

/**
 * `<streamId>_<seq>` → its parts; undefined when it is not one of ours. The seq must be written as
 * this server writes it (Number() would also read "", "+1", "01", "1e0" and "0x1").
 */
export function parseEventId(lastEventId: string): { streamId: string; afterSeq: number } | undefined {
  const cut = lastEventId.lastIndexOf("_");
  if (cut <= 0 || lastEventId.length > 128) return undefined;
  const text = lastEventId.slice(cut + 1);
  if (!/^(?:0|[1-9]\d{0,15})$/.test(text)) return undefined;
  const afterSeq = Number(text);
  if (!Number.isSafeInteger(afterSeq)) return undefined;
  return { streamId: lastEventId.slice(0, cut), afterSeq };
}

/** What a connection's body needs beyond its logical stream. */
export interface SseBodyOptions {
  /** A keep-alive comment this often (0: none). */
  keepAliveMs: number;
  /** A named `ping` event (data {}) this often, for clients that watch for it (seed 001). */
  pingMs?: number;
  /**
   * End this connection after so long (the logical stream stays resumable): long-lived streams
   * must end inside the platform's function limit, and clients reconnect (basic/transports).
   */
  maxLifetimeMs?: number;
  /** Called once when the connection ends, whoever ends it (stream slots are released here). */
  onEnd?: () => void;
  /**
   * Aborts when the client goes away (RequestHost.clientGone). A client that drops the request
   * before the answer's headers arrive leaves a body nobody reads or cancels: without this its
   * connection stayed attached, holding a stream slot and the session's messages (outside review).
   */
  clientGone?: AbortSignal;
}

/**
 * A ReadableStream that feeds an HTTP response from a logical stream, with keep-alive comments.
 * When the client goes away, the logical stream is told (and may later be resumed).
 */
export function sseBody(
  connect: (sink: StreamSink) => void,
  onClientGone: (sink: StreamSink) => void,
  options: SseBodyOptions,
): ReadableStream<Uint8Array> {
  // Shared timers (stream-clock.ts): a per-stream timer would keep its request's context alive.
  let stopBeat: (() => void) | undefined;
  let stopLifetime: (() => void) | undefined;
  let closed = false;
  let sink: StreamSink;
  const clientGone = options.clientGone;
  const ended = () => {
    stopBeat?.();
    stopLifetime?.();
    clientGone?.removeEventListener("abort", dropped);
    options.onEnd?.();
  };
  /** The client went away (the runtime cancelled the body). */
  const gone = () => {
    if (closed) return;
    closed = true;
    ended();
    onClientGone(sink);
  };
  let end: (() => void) | undefined;
  /** The client went away and the runtime may never read or cancel the body: as a cancel, then closed. */
  const dropped = () => {
    gone();
    end?.();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      sink = {
        write(chunk) {
          if (closed) return;
          try {
            controller.enqueue(chunk);
          } catch {
            closed = true;
          }
        },
        close() {
          if (closed) return;
          closed = true;
          ended();
          try {
            controller.close();
          } catch {
            /* already closed by the runtime */
          }
        },
      };
      end = () => {
        try {
          controller.close();
        } catch {
          /* already closed by the runtime */
        }
      };
      connect(sink);
      if (closed) return;
      if (clientGone?.aborted) return dropped();
      clientGone?.addEventListener("abort", dropped, { once: true });
      if (options.pingMs !== undefined && options.pingMs > 0) {
        stopBeat = everyPeriod(options.pingMs, () => sink.write(PING));
      } else if (options.keepAliveMs > 0) {
        stopBeat = everyPeriod(options.keepAliveMs, () => sink.write(KEEP_ALIVE));
      }
      if (options.maxLifetimeMs !== undefined) {
        stopLifetime = afterLifetime(options.maxLifetimeMs, () => {
          // As if the client had gone: the logical stream waits for it to reconnect.
          onClientGone(sink);
          sink.close();
        });
      }
    },
    cancel() {
      gone();
    },
  });
}
