import type { Acceptable } from "../../http/accept";
import type { RequestHost } from "../../http/handle-init";
import type { AuthInfo } from "../../auth/auth-info";
import { logUnexpected, silentRequestLogger } from "../runtime/request-log";
import { mayHear } from "../cluster/server-event";
import { INSTANCE_ID, livenessCheckMs, type StreamLog } from "../cluster/cluster";
import type { RemoteStreams } from "./cluster-streams";
import { InFlightRequests } from "./in-flight";
import type { StreamableHttpOptions } from "./options";
import type { PendingRequests } from "./pending-requests";
import type { StreamTable } from "./resumable-streams";
import { handleDelete } from "./session/delete";
import { handleGet, handleHead } from "./session/get-stream";
import { handlePost } from "./session/post";
import { endSessionsHere, type SessionEraState } from "./session/state";
import { StandaloneStreams } from "./standalone-streams";
import { whenClosing } from "./stream-clock";
import type { ToolEvents } from "./tool-events";

/**
 * An instance killed without a word (SIGKILL, reclaimed) never says its GET streams ended: they
 * would be taken as connected until forgotten (a lifetime and a grace period later, ~5 min), the
 * session's messages reaching no stream. Its liveness key lapses within `log.livenessMs` (15 s by
 * default, redis-cluster.ts): every livenessCheckMs, while streams elsewhere are known, the
 * instances holding them are looked up once each, not per message.
 */
function forgetDeadInstances(standalone: StandaloneStreams, log: StreamLog): void {
  let checking = false;
  const timer = setInterval(() => {
    const instances = standalone.instancesElsewhere();
    if (checking || instances.size === 0) return;
    checking = true;
    log.live([...instances]).then(
      (live) => {
        checking = false;
        standalone.forgetInstances(new Set([...instances].filter((i) => !live.has(i))));
      },
      (thrown: unknown) => {
        checking = false;
        logUnexpected("instance liveness", thrown);
      },
    );
  }, livenessCheckMs(log));
  timer.unref?.();
}

/** What the session era shares with the stateless one (built by streamable-http.ts). */
export interface SharedTransport {
  streams: StreamTable;
  pending: PendingRequests;
  remote: RemoteStreams | undefined;
  toolEvents: ToolEvents;
}

export interface SessionEra {
  post(request: Request, body: unknown, accept: Acceptable, auth: AuthInfo | undefined, host: RequestHost): Response | Promise<Response>;
  get(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response>;
  /** GET's status and header fields, no stream opened (RFC 9110 §9.3.2). */
  head(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response>;
  delete(request: Request, auth: AuthInfo | undefined, host: RequestHost): Promise<Response>;
}

/**
 * The session era of Streamable HTTP (2025-03-26, 2025-06-18, 2025-11-25; basic/transports):
 * initialize and optional sessions, POST answered with JSON or SSE, the GET stream, DELETE,
 * server → client requests on the call's stream, notifications/cancelled. Each request kind
 * lives in session/; this module builds their shared state and wires it to the event sources.
 */
export function createSessionEra(options: StreamableHttpOptions, shared: SharedTransport): SessionEra {
  const state: SessionEraState = {
    env: options.env,
    stateful: options.sessionMode === "stateful",
    sessions: options.cluster.sessions,
    bus: options.cluster.bus,
    hub: options.hub,
    ...shared,
    standalone: new StandaloneStreams({
      instance: INSTANCE_ID,
      audiences: shared.toolEvents.presence,
      tell: (news) => options.cluster.bus.publish({ kind: "standalone_stream", ...news }),
      // A stream that lives is heard of at least this often (standalone-streams.ts); slack for the bus.
      forgetAfterMs: options.streamMaxLifetimeMs + options.resumeGraceMs + 30_000,
    }),
    inFlight: new InFlightRequests(),
    limiter: options.limiter,
    log: options.log === silentRequestLogger ? undefined : options.log,
    limits: {
      sessionTtlMs: options.sessionTtlMs,
      maxBatch: options.maxBatch,
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      pingMs: options.pingMs,
      streamMaxLifetimeMs: options.streamMaxLifetimeMs,
    },
  };
  whenClosing(() => state.standalone.endAll());
  if (options.cluster.streamLog) forgetDeadInstances(state.standalone, options.cluster.streamLog);
  deliverServerEvents(state, options);
  deliverToolEvents(state);
  hearOtherInstances(state);
  return {
    post: (request, body, accept, auth, host) => handlePost(state, request, body, accept, auth, host),
    get: (request, auth, host) => handleGet(state, request, auth, host),
    head: (request, auth, host) => handleHead(state, request, auth, host),
    delete: (request, auth, host) => handleDelete(state, request, auth, host),
  };
}

/**
 * Server events reach the session era's GET streams (server/tools §list changed notification;
 * server/resources §subscriptions: only sessions subscribed to the uri hear of its updates, and
 * only when the resource is their subject's: server-event.ts).
 */
function deliverServerEvents(state: SessionEraState, options: StreamableHttpOptions): void {
  const { standalone, sessions } = state;
  options.hub.subscribe((event) => {
    if (event.kind === "list_changed") {
      const message = JSON.stringify({ jsonrpc: "2.0", method: `notifications/${event.list}/list_changed` });
      for (const [, stream] of standalone.entries()) stream.write(message);
      return;
    }
    if (event.kind === "session_notification") {
      // The GET stream that carries the session's messages, on whichever instance holds it; none
      // open: nobody hears it.
      standalone.get(event.sessionId)?.write(JSON.stringify({ jsonrpc: "2.0", method: event.method, params: event.params }));
      return;
    }
    // Task status travels on 2026-07-28 listen streams only (2025-11-25 tasks are polled).
    if (event.kind !== "resource_updated") return;
    const message = JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: event.uri } });
    for (const [sessionId, stream] of standalone.entries()) {
      void Promise.resolve(sessions.get(sessionId)).then((session) => {
        if (session?.subscriptions.includes(event.uri) && mayHear(event, session.subject)) stream.write(message);
      });
    }
  });
}

/** Tool runs' named events go to the GET streams of their audience on this instance. */
function deliverToolEvents(state: SessionEraState): void {
  const { standalone } = state;
  state.toolEvents.deliverTo({
    deliver: (audience, event, data) => {
      const streams = standalone.of(audience);
      if (streams.length === 0) return; // the event is for another instance's streams (the bus)
      const text = JSON.stringify(data);
      for (const stream of streams) stream.write(text, event);
    },
    listening: (audience) => standalone.of(audience).length > 0,
  });
}

/**
 * What other instances tell this one (lib/mcp/cluster/cluster.ts): answers to questions asked
 * here, cancellations of calls running here, sessions ended elsewhere, followers of streams.
 */
function hearOtherInstances(state: SessionEraState): void {
  state.bus.subscribe((message) => {
    switch (message.kind) {
      case "client_response":
        state.pending.settle(message.response, message.sessionId);
        return;
      case "cancel":
        state.inFlight.cancel(message.scope, message.requestId, message.reason);
        return;
      case "session_ended":
        endSessionsHere(state, [message.sessionId], "session terminated");
        return;
      case "standalone_stream":
        state.standalone.heard(message);
        return;
      default:
        state.remote?.handle(message);
    }
  });
}
