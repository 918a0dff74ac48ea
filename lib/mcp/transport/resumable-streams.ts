import { randomBytes } from "node:crypto";
import { encodeSse, encodeSseComment } from "./sse";

/**
 * Logical SSE streams that outlive their HTTP connections (basic/transports §resumability and
 * redelivery). Every event gets an id `<streamId>_<seq>`; events are kept for a while so a client
 * that reconnects with Last-Event-ID — on purpose (SSE polling) or after a network drop — gets
 * what it missed on a new GET, and then the rest as it happens.
 *
 * In-process: a client reaches the stream again only on the same instance. The scale-out issue
 * moves the event log and delivery behind a shared store.
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
  private sink: StreamSink | undefined;
  private done = false;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private abandonHandlers: (() => void)[] = [];

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
  ) {}

  get finished(): boolean {
    return this.done;
  }

  get attached(): boolean {
    return this.sink !== undefined;
  }

  /** The id a priming event carries: the position before the next event. */
  currentEventId(): string {
    return `${this.id}_${this.seq}`;
  }

  onAbandoned(handler: () => void): void {
    this.abandonHandlers.push(handler);
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
      if (this.events.length > this.options.maxEvents) this.events.shift();
    }
    this.sink?.write(encodeSse({ id: `${this.id}_${seq}`, data, ...(event === undefined ? {} : { event }) }));
  }

  comment(text: string): void {
    this.sink?.write(encodeSseComment(text));
  }

  /** Attach a connection, replaying events after `afterSeq`. A finished stream replays and closes. */
  attach(sink: StreamSink, afterSeq: number, prime?: { retryMs: number }): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.sink?.close();
    this.sink = sink;
    if (prime) sink.write(encodeSse({ id: this.currentEventId(), retry: prime.retryMs, data: "" }));
    for (const e of this.events) if (e.seq > afterSeq) sink.write(encodeSse({ id: `${this.id}_${e.seq}`, data: e.data }));
    if (this.done) this.closeSink();
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

  constructor(private readonly options: StreamOptions) {}

  open(sessionId: string | undefined, resumable = true): LogicalStream {
    const id = randomBytes(12).toString("base64url");
    const stream = new LogicalStream(id, sessionId, this.options, (s) => this.streams.delete(s.id), resumable);
    if (resumable) this.streams.set(id, stream);
    return stream;
  }

  /** Resolve a Last-Event-ID to its stream and position; undefined when unknown or expired. */
  resolve(lastEventId: string): { stream: LogicalStream; afterSeq: number } | undefined {
    const cut = lastEventId.lastIndexOf("_");
    if (cut <= 0) return undefined;
    const stream = this.streams.get(lastEventId.slice(0, cut));
    const afterSeq = Number(lastEventId.slice(cut + 1));
    if (!stream || !Number.isSafeInteger(afterSeq) || afterSeq < 0) return undefined;
    return { stream, afterSeq };
  }

  /** Finish every stream of a session (DELETE). */
  closeSession(sessionId: string): void {
    for (const s of this.streams.values()) if (s.sessionId === sessionId) s.finish();
  }
}

/**
 * A ReadableStream that feeds an HTTP response from a logical stream, with keep-alive comments.
 * When the client goes away, the logical stream is told (and may later be resumed).
 */
export function sseBody(
  connect: (sink: StreamSink) => void,
  onClientGone: (sink: StreamSink) => void,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let sink: StreamSink;
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
          if (timer) clearInterval(timer);
          try {
            controller.close();
          } catch {
            /* already closed by the runtime */
          }
        },
      };
      connect(sink);
      if (!closed && keepAliveMs > 0) {
        timer = setInterval(() => sink.write(encodeSseComment("keep-alive")), keepAliveMs);
        timer.unref?.();
      }
    },
    cancel() {
      closed = true;
      if (timer) clearInterval(timer);
      onClientGone(sink);
    },
  });
}
