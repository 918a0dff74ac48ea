import { McpError, failure, type JsonRpcId } from "../../jsonrpc";
import { logUnexpected } from "../runtime/request-log";
import { livenessCheckMs, type ClusterBus, type ClusterMessage, type LoggedStream, type LoggedStreamEvent, type StreamLog } from "../cluster/cluster";
import { encodeSse, encodeSseComment } from "./sse";
import { sseBody, type SseBodyOptions, type StreamMirror, type StreamSink, type StreamTable } from "./resumable-streams";
import { everyPeriod } from "./stream-clock";

/**
 * Resumable streams across instances (basic/transports §resumability and redelivery, on many
 * instances). The instance that runs a call owns its stream and mirrors every event to the
 * shared log and the bus; a client that comes back with Last-Event-ID on another instance is
 * served there: first what it missed, from the log, then each new event as the bus brings it,
 * until the owner finishes the stream. Reconnecting elsewhere tells the owner, so its grace timer
 * does not abandon work a client is still following. An owner that dies without finishing the
 * stream (killed, reclaimed) is noticed by its lapsed liveness (lib/cluster/redis-cluster.ts):
 * the follower answers each request the stream still owed with an error, and ends it.
 */

/** The owner's side: copy each event of a resumable stream to the log (in order) and the bus. */
export function clusterMirror(log: StreamLog, bus: ClusterBus, retentionMs: number): StreamMirror {
  // Writes of one stream are chained so the log keeps its order; a failure is logged, not fatal:
  // the local connection still gets every event, only a remote resume would miss it.
  const queues = new Map<string, Promise<void>>();
  const enqueue = (streamId: string, write: () => Promise<void>, last = false): Promise<void> => {
    const next = (queues.get(streamId) ?? Promise.resolve()).then(write).catch((thrown: unknown) => logUnexpected("stream log", thrown));
    if (last) void next.then(() => queues.delete(streamId));
    else queues.set(streamId, next);
    return next;
  };
  return {
    opened(stream) {
      return enqueue(stream.id, () => log.open(stream.id, stream.sessionId, retentionMs, stream.requestIds));
    },
    // Published once the write has settled: a follower that has read the log and then hears the
    // bus can never miss an event that was announced before it listened but written after it
    // read. Published when the write failed too: a slow Redis may still take it, and a follower
    // writes only seqs above its last, so an event not announced was skipped for good (outside
    // audit, 2026-11-27: progress 4 and 5 lost during a slowdown). A named event is logged by its
    // seq only, and not published: followers never replay it.
    event(stream, seq, data) {
      enqueue(stream.id, async () => {
        if (data === undefined) return log.append(stream.id, { seq });
        try {
          await log.append(stream.id, { seq, data });
        } finally {
          bus.publish({ kind: "stream_event", streamId: stream.id, seq, data });
        }
      });
    },
    // Not through the stream's queue: it says where the client is now, not what the stream holds.
    attached(stream) {
      bus.publish({ kind: "stream_attached", streamId: stream.id });
    },
    finished(stream) {
      enqueue(
        stream.id,
        async () => {
          try {
            await log.finish(stream.id);
          } finally {
            bus.publish({ kind: "stream_finished", streamId: stream.id });
          }
        },
        true,
      );
    },
  };
}

/**
 * How long a resume waits for the log to reach its Last-Event-ID. The owner sends each event to
 * its client as soon as it queued the log write, so a client quick to come back elsewhere can
 * hold an id the log does not show yet; past these pauses (about a second) the id is taken as
 * never issued.
 */
const CATCH_UP_PAUSES_MS = [25, 50, 100, 200, 300, 400];

interface Reader {
  deliver(event: LoggedStreamEvent): void;
  finish(): void;
  /** The client connected to the stream again, elsewhere or through another reader here: this connection ends. */
  replace(): void;
}

/**
 * The answer to a request whose instance died before answering it. -32603: the request was valid
 * and the server failed it (JSON-RPC 2.0 §5.1), as when its client does not come back in time
 * (post-exchange.ts); whether its work took effect is unknown.
 */
function ownerGone(): McpError {
  return McpError.internal("The instance serving this request stopped before answering it; its work may or may not have taken effect. Send it again if that is safe.");
}

/** The id of the request `data` answers (a response, not a request of the server's); undefined otherwise. */
function answeredId(data: string): JsonRpcId | undefined {
  const message: unknown = JSON.parse(data);
  if (typeof message !== "object" || message === null || "method" in message || !("id" in message)) return undefined;
  const { id } = message;
  return (typeof id === "string" || typeof id === "number") && ("result" in message || "error" in message) ? id : undefined;
}

/** Streams owned elsewhere that clients follow through this instance; and the owner's bookkeeping. */
export class RemoteStreams {
  private readonly readers = new Map<string, Set<Reader>>();

  constructor(
    private readonly log: StreamLog,
    private readonly bus: ClusterBus,
    private readonly local: StreamTable,
  ) {}

  /**
   * The log of a stream that issued `afterSeq` (basic/transports §resumability: an id is a cursor
   * within its stream, and one beyond the last issued is no place in it) and still keeps every
   * event after it; undefined otherwise.
   */
  private async issued(streamId: string, afterSeq: number): Promise<Awaited<ReturnType<StreamLog["read"]>>> {
    let known = await this.log.read(streamId, afterSeq);
    for (const pause of CATCH_UP_PAUSES_MS) {
      // A finished stream's log is whole: its end is written after its last event.
      if (!known || known.lastSeq >= afterSeq || known.finished) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
      known = await this.log.read(streamId, afterSeq);
    }
    return known && known.lastSeq >= afterSeq && !known.trimmed ? known : undefined;
  }

  /** Cluster messages about streams: events for readers here, attach/detach for streams owned here. */
  handle(message: ClusterMessage): void {
    switch (message.kind) {
      case "stream_event":
        for (const r of this.readers.get(message.streamId) ?? []) r.deliver({ seq: message.seq, data: message.data });
        return;
      case "stream_finished":
        for (const r of this.readers.get(message.streamId) ?? []) r.finish();
        return;
      case "stream_attached":
        // One connection per stream: the one just made elsewhere takes the place of any here.
        this.local.get(message.streamId)?.attachedElsewhere();
        for (const r of [...(this.readers.get(message.streamId) ?? [])]) r.replace();
        return;
      case "stream_detached":
        this.local.get(message.streamId)?.detachedElsewhere();
        return;
      default:
        return;
    }
  }

  /** Whether `resume` would serve this Last-Event-ID to `sessionId`'s client (HEAD asks, opening nothing). */
  async resumable(streamId: string, afterSeq: number, sessionId: string): Promise<boolean> {
    const known = await this.issued(streamId, afterSeq);
    return known !== undefined && known.sessionId === sessionId;
  }

  /**
   * When the stream is a GET stream of `sessionId` that has ended (given up after the grace
   * period, or its instance went down): what replays it from `afterSeq`, for the resume to open a
   * new stream after it, as on the instance that held it (get-stream.ts). Undefined otherwise.
   * An instance killed mid-stream never marks it finished, only leaves it abandoned: followed as
   * a live stream, it ended at once on every resume (outside probe, 2026-11-29).
   */
  async endedStandalone(streamId: string, afterSeq: number, sessionId: string): Promise<((sink: StreamSink) => void) | undefined> {
    const known = await this.issued(streamId, afterSeq);
    // A GET stream answers no request: a POST's stream always names the ones it answers.
    if (!known || known.sessionId !== sessionId || !(known.finished || known.abandoned) || known.requestIds.length > 0) return undefined;
    return (sink) => {
      for (const e of known.events) sink.write(encodeSse({ id: `${streamId}_${e.seq}`, data: e.data }));
    };
  }

  /**
   * Serve a stream owned by another instance from `afterSeq` on, for `sessionId`'s client.
   * Undefined when the log does not know it (or it is another session's), or it never issued
   * `afterSeq`: answered 404 like any unknown Last-Event-ID.
   */
  async resume(streamId: string, afterSeq: number, sessionId: string, connection: SseBodyOptions): Promise<ReadableStream<Uint8Array> | undefined> {
    const known = await this.issued(streamId, afterSeq);
    if (!known || known.sessionId !== sessionId) return undefined;
    let lastSeq = afterSeq;
    let sink: StreamSink | undefined;
    let ended = false;
    const pending: LoggedStreamEvent[] = [];
    let replayed = false;
    const write = (e: LoggedStreamEvent) => {
      if (e.seq <= lastSeq) return; // replayed already, or delivered twice: never sent twice
      lastSeq = e.seq;
      sink?.write(encodeSse({ id: `${streamId}_${e.seq}`, data: e.data }));
    };
    const reader: Reader = {
      deliver: (e) => (replayed ? write(e) : pending.push(e)),
      finish: () => {
        ended = true;
        if (replayed) sink?.close();
      },
      // Ended, so it does not tell the owner the client left: the client is on the newer connection.
      replace: () => {
        ended = true;
        sink?.close();
      },
    };
    const set = this.readers.get(streamId) ?? new Set<Reader>();
    this.readers.set(streamId, set);
    set.add(reader);
    // A second resume through this instance: the bus does not bring an instance its own news.
    // After the add: a replaced reader leaving an empty set would take the set out of the map.
    for (const other of [...set]) if (other !== reader) other.replace();
    let stopWatch: (() => void) | undefined;
    const leave = () => {
      stopWatch?.();
      set.delete(reader);
      if (set.size === 0) this.readers.delete(streamId);
    };
    /** The owner died: the requests the stream still owed are answered with an error, then it ends. */
    const abandon = (logged: LoggedStream) => {
      ended = true;
      void this.lostAnswers(streamId, logged.requestIds).then(
        (answers) => {
          for (const answer of answers) sink?.write(answer);
          sink?.close();
        },
        (thrown: unknown) => {
          logUnexpected("stream resume", thrown);
          sink?.close();
        },
      );
    };
    /** What the log says now: anything the bus did not bring, and whether the stream ended or its owner died. */
    const follow = (now: LoggedStream | undefined) => {
      for (const e of now?.events ?? []) write(e);
      if (ended || now?.finished) {
        ended = true;
        sink?.close();
      } else if (now?.abandoned) abandon(now);
    };
    let checking = false;
    const check = () => {
      if (checking || ended) return;
      checking = true;
      this.log.read(streamId, lastSeq).then(
        (now) => {
          checking = false;
          follow(now);
        },
        // The store did not answer: the next beat asks again.
        () => (checking = false),
      );
    };
    return sseBody(
      (s) => {
        sink = s;
        // Headers go out now, not with the first event (which may be a while).
        s.write(encodeSseComment("resumed"));
        this.bus.publish({ kind: "stream_attached", streamId });
        // Listening before reading again: an event is published only after it is in the log, so
        // anything not in this read arrives on the bus.
        void this.log.read(streamId, afterSeq).then(
          (now) => {
            for (const e of now?.events ?? known.events) write(e);
            for (const e of pending.sort((a, b) => a.seq - b.seq)) write(e);
            pending.length = 0;
            replayed = true;
            follow(now && { ...now, events: [] });
            // The log again, as often as liveness is checked: events the bus may have dropped,
            // and whether the owner still lives.
            if (!ended) stopWatch = everyPeriod(livenessCheckMs(this.log), check);
          },
          (thrown: unknown) => {
            logUnexpected("stream resume", thrown);
            s.close();
          },
        );
      },
      () => undefined,
      {
        ...connection,
        onEnd: () => {
          leave();
          if (!ended) this.bus.publish({ kind: "stream_detached", streamId });
          connection.onEnd?.();
        },
      },
    );
  }

  /**
   * An error answer, as an SSE event, for each of `requestIds` the stream's log holds no answer to.
   * No event id: the log does not hold them, so they are no place to resume from; a later resume
   * finds the owner still gone and answers them again.
   */
  private async lostAnswers(streamId: string, requestIds: readonly JsonRpcId[]): Promise<Uint8Array[]> {
    if (requestIds.length === 0) return [];
    const whole = await this.log.read(streamId, 0);
    const answered = new Set<JsonRpcId>();
    for (const e of whole?.events ?? []) {
      const id = answeredId(e.data);
      if (id !== undefined) answered.add(id);
    }
    return requestIds.filter((id) => !answered.has(id)).map((id) => encodeSse({ data: JSON.stringify(failure(id, ownerGone())) }));
  }
}
