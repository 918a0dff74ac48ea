import { randomUUID } from "node:crypto";
import { ErrorCode, McpError, type JsonRpcId, type JsonRpcResponse } from "../../jsonrpc";
import type { ServerEvent } from "./server-event";
import type { SessionStore, SpentStateStore } from "./stores";

/**
 * What the instances of one deployment share (basic/transports on many serverless instances:
 * consecutive requests of one client reach different ones). Nothing a later request needs may
 * live only in one instance's memory: sessions, spent requestStates, the event logs of resumable
 * streams, and a bus that carries what one instance must tell the others. In-process defaults
 * serve a single instance; lib/cluster puts them in Redis.
 */

/** This process, as the bus names it: an instance ignores its own messages. */
export const INSTANCE_ID = randomUUID();

/** Named events of the GET stream for a caller's tool runs (seed 001 §server-sent events). */
export type ToolEventName = "tool-progress" | "tool-complete" | "tool-error";

/**
 * One GET stream of a session, as the instance holding it tells the others: each message of the
 * session goes to one stream only (basic/transports §multiple connections), chosen by every
 * instance alike from what they all know (standalone-streams.ts).
 */
export interface StandaloneStreamNews {
  sessionId: string;
  streamId: string;
  /** With `instance`, its place in the session's order of streams: later is newer. */
  openedAt: number;
  instance: string;
  /**
   * connected: a client reads it (through any instance); detached: its client went away and may
   * resume it within the grace period; ended: it is over.
   */
  state: "connected" | "detached" | "ended";
}

export type ClusterMessage =
  /** A client answered a server → client request that another instance is waiting for. */
  | { kind: "client_response"; sessionId: string; response: JsonRpcResponse }
  /** notifications/cancelled for a request another instance is running. */
  | { kind: "cancel"; scope: string; requestId: JsonRpcId; reason: string }
  /** DELETE ended a session: its work everywhere stops, its streams close. */
  | { kind: "session_ended"; sessionId: string }
  /** A session's GET stream on `instance` connected, lost its client, or ended (standalone-streams.ts). */
  | ({ kind: "standalone_stream" } & StandaloneStreamNews)
  /** list_changed / resource_updated, for every instance's open streams. */
  | { kind: "server_event"; event: ServerEvent }
  /** A resumable stream's next event, for an instance that serves a resumed connection to it. */
  | { kind: "stream_event"; streamId: string; seq: number; data: string }
  | { kind: "stream_finished"; streamId: string }
  /** A client reconnected to (or left) a stream another instance owns: its grace timer stops (or starts). */
  | { kind: "stream_attached"; streamId: string }
  | { kind: "stream_detached"; streamId: string }
  /** A tool run's named event, for the GET streams of its audience (subject or session). */
  | { kind: "tool_event"; audience: string; event: ToolEventName; data: Record<string, unknown> }
  /** GET streams of these audiences (tool_event's) are open on `instance` (audience-presence.ts), for `leaseMs` unless repeated. */
  | { kind: "audiences"; instance: string; audiences: string[]; leaseMs: number }
  /** The last GET stream of `audience` on `instance` ended. */
  | { kind: "audience_left"; instance: string; audience: string }
  /** A new instance asks every other to say which audiences it holds. */
  | { kind: "audiences_asked" }
  /** Tools were switched on or off (npm run tools): every instance re-reads the switches. */
  | { kind: "tools_switched" }
  /** tasks/cancel ended a task another instance may be running: its handler's signal fires. */
  | { kind: "task_cancelled"; taskId: string };

export interface ClusterBus {
  /** Deliver to every other instance. Never throws; failures are logged. */
  publish(message: ClusterMessage): void;
  /** Messages from the other instances (never this one's own). */
  subscribe(handler: (message: ClusterMessage) => void): () => void;
  /** Resolves once messages of the others reach this instance: true, or false when subscribing failed. */
  joined(): Promise<boolean>;
}

export interface LoggedStreamEvent {
  seq: number;
  data: string;
}

/**
 * One id a stream issued, as the log keeps it: the event to replay, or only the seq of a named
 * event (never replayed, but its id is a place to resume from all the same).
 */
export type LoggedStreamId = LoggedStreamEvent | { seq: number; data?: undefined };

/** What the log knows of a stream, read from `afterSeq` on (StreamLog.read). */
export interface LoggedStream {
  /** The events after `afterSeq`. */
  events: LoggedStreamEvent[];
  /** The last seq the stream issued as far as the log knows (0 before its first). */
  lastSeq: number;
  finished: boolean;
  sessionId: string | undefined;
  /** The ids of the requests the stream carries the answers to (none for a GET stream). */
  requestIds: JsonRpcId[];
  /**
   * Unfinished, and the instance that owns it is gone (it died without finishing the stream): no
   * event will ever come. False while the owner lives, and for a log that names no owner.
   */
  abandoned: boolean;
  /**
   * Events after `afterSeq` were trimmed from the log (it keeps the last ones only): replaying
   * from there would skip them without a word, so such an id cannot be resumed from.
   */
  trimmed: boolean;
}

/** Where resumable streams keep their events, so a client may resume on any instance. */
export interface StreamLog {
  /** `requestIds`: the requests whose answers the stream carries (LogicalStream.requestIds). */
  open(streamId: string, sessionId: string | undefined, retentionMs: number, requestIds: readonly JsonRpcId[]): Promise<void>;
  append(streamId: string, entry: LoggedStreamId): Promise<void>;
  finish(streamId: string): Promise<void>;
  /** What the log knows of the stream from `afterSeq` on; undefined when it does not know it. */
  read(streamId: string, afterSeq: number): Promise<LoggedStream | undefined>;
  /** Which of these instances still live (their liveness has not lapsed). */
  live(instances: readonly string[]): Promise<Set<string>>;
  /** How long after its last renewal a silent instance's liveness lapses. */
  readonly livenessMs: number;
}

/**
 * How often an instance that waits on others' liveness looks again: three times per lapse, so a
 * dead instance is noticed within the lapse and a third of it (about 20 s by default).
 */
export function livenessCheckMs(log: StreamLog): number {
  return log.livenessMs / 3;
}

/** Which tools are switched off at run time, for every instance. */
export interface ToolSwitches {
  disabled(): Promise<string[]>;
  set(tool: string, enabled: boolean): Promise<void>;
}

export interface Cluster {
  sessions: SessionStore;
  spentStates: SpentStateStore;
  bus: ClusterBus;
  /** Absent for a single instance: streams are resumed where they live. */
  streamLog?: StreamLog;
  /** Absent for a single instance: tools switch by configuration at start-up only. */
  switches?: ToolSwitches;
}

/** The bus of a single instance: there is nobody else to tell. */
export const SOLO_BUS: ClusterBus = {
  publish: () => undefined,
  subscribe: () => () => undefined,
  joined: () => Promise.resolve(true),
};

/** Seconds a client is asked to wait when the shared store does not answer. */
const STORE_RETRY_AFTER_S = 2;

/**
 * The shared store (sessions, stream logs, spent states) did not answer: the request fails as a
 * whole with HTTP 503 and Retry-After — retryable, unlike a 500 — and a JSON-RPC error.
 */
export function storeUnavailable(): McpError {
  return new McpError(ErrorCode.InternalError, "Session store unavailable: try again shortly", { retryAfter: STORE_RETRY_AFTER_S }, 503, {
    "Retry-After": String(STORE_RETRY_AFTER_S),
  });
}
