import type { AuthInfo } from "../../../auth/auth-info";
import type { ClusterBus } from "../../cluster/cluster";
import type { NotificationHub } from "../../cluster/notification-hub";
import type { MethodEnv } from "../../methods";
import type { RequestLimiter } from "../../policy/rate-limit";
import type { RequestLogger } from "../../runtime/request-log";
import type { RemoteStreams } from "../cluster-streams";
import type { InFlightRequests } from "../in-flight";
import type { PendingRequests } from "../pending-requests";
import type { StreamTable } from "../resumable-streams";
import type { SessionRecord, SessionStore } from "../session-store";
import type { StandaloneStreams } from "../standalone-streams";
import type { ToolEvents } from "../tool-events";

/**
 * What every request kind of the session era shares: the stores it reads, the tables of what
 * runs on this instance, and the limits it applies. Built once by createSessionEra
 * (../session-era.ts) and passed to each handler, so none of them closes over the others.
 */
export interface SessionEraState {
  env: MethodEnv;
  /** "stateful": initialize mints Mcp-Session-Id; otherwise there are no sessions, GET or DELETE. */
  stateful: boolean;
  sessions: SessionStore;
  bus: ClusterBus;
  /** Server events for the streams of every instance (a session's GET stream among them). */
  hub: NotificationHub;
  /** Resumable POST and GET streams, and pending server → client questions. */
  streams: StreamTable;
  pending: PendingRequests;
  /** Streams of other instances (with a shared stream log). */
  remote: RemoteStreams | undefined;
  toolEvents: ToolEvents;
  /** Each session's GET stream on this instance. */
  standalone: StandaloneStreams;
  /** Requests running on this instance, by caller scope, for notifications/cancelled. */
  inFlight: InFlightRequests;
  limiter: RequestLimiter | undefined;
  /** Undefined when request logging is off (no timing work at all). */
  log: RequestLogger | undefined;
  limits: {
    sessionTtlMs: number;
    maxBatch: number;
    retryMs: number;
    keepAliveMs: number;
    pingMs: number;
    streamMaxLifetimeMs: number;
  };
}

/**
 * These sessions' work on this instance stops: handlers abort, questions fail, their streams
 * close and leave the GET-stream table. One pass over each table however many sessions end (a
 * full process may end thousands of expired ones to make room).
 */
export function endSessionsHere(state: SessionEraState, sessionIds: readonly string[], reason: string): void {
  if (sessionIds.length === 0) return;
  const ended = new Set(sessionIds);
  state.inFlight.cancelScopes(ended, reason);
  state.pending.rejectSessions(ended, reason);
  state.streams.closeSessions(ended);
  for (const id of ended) state.standalone.drop(id);
}

/**
 * Sessions ended by the server or their client (DELETE, or made room for by a newer one): their
 * work stops here and, through the bus, on every other instance.
 */
export function endSessions(state: SessionEraState, sessionIds: readonly string[], reason: string): void {
  endSessionsHere(state, sessionIds, reason);
  for (const sessionId of sessionIds) state.bus.publish({ kind: "session_ended", sessionId });
}

/**
 * Whose request ids a notifications/cancelled may name. Without a session or a subject, all
 * anonymous stateless callers share one scope: ids should then be unique (e.g. UUIDs).
 */
export function callerScope(session: SessionRecord | undefined, auth: AuthInfo | undefined): string {
  return session?.id ?? (auth ? `sub:${auth.subject}` : "anonymous");
}
