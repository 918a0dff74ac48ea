import { logUnexpected } from "../../runtime/request-log";
import { everyPeriod } from "../stream-clock";
import type { LogicalStream } from "../resumable-streams";
import { endSessionsHere, type SessionEraState } from "./state";

/**
 * How often an open GET stream looks after its session: a quarter of the TTL, from 1 s to 30 s.
 * The upper bound is what notices a session gone from the store (expired early, the store emptied
 * or restarted): with the default 24 h TTL a quarter is 6 h, and an outside review saw a stream
 * whose session was gone carry on to its 280 s lifetime, still sent notifications, its client
 * never told to initialize again. One store read per open stream per 30 s.
 */
export function upkeepPeriodMs(sessionTtlMs: number): number {
  return Math.min(Math.max(sessionTtlMs / 4, 1_000), 30_000);
}

/**
 * While a session's GET stream is open, the session stays alive, as it does while requests come
 * (the same sliding expiry, written once per half-TTL); and a session gone from the store without
 * word on the bus (expired, the store emptied) ends its streams here, freeing their slots. An
 * outside audit found a client that only listened lose its session at the TTL while its stream
 * went on for good, holding a slot, its client never told.
 */
export function keepSessionWhileOpen(state: SessionEraState, sessionId: string, stream: LogicalStream): void {
  const ttl = state.limits.sessionTtlMs;
  const stop = everyPeriod(upkeepPeriodMs(ttl), () => {
    Promise.resolve(state.sessions.get(sessionId))
      .then((session) => {
        if (!session) {
          stop();
          endSessionsHere(state, [sessionId], "session expired");
          return;
        }
        const now = Date.now();
        // Read once already: written (read again, atomically) only when half the TTL has gone.
        if (session.expiresAt - now >= ttl / 2) return;
        return state.sessions.update(sessionId, (current) => (current.expiresAt - now < ttl / 2 ? { expiresAt: now + ttl } : undefined));
      })
      .catch((e: unknown) => logUnexpected("session upkeep", e));
  });
  // Its entry goes with the stream, not at a beat up to 30 s later.
  stream.onFinished(stop);
}
