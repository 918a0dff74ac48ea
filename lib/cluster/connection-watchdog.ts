import type { Redis as IORedis, RedisOptions } from "ioredis";
import { logWarning } from "../log/operator-log";

/**
 * Replacing a Redis connection that has gone silent while its socket stays open: a failover, or a
 * NAT or load balancer that dropped the flow without a reset. ioredis reconnects when the socket
 * closes, but a silent one closes only when TCP gives up (about 15 minutes of retransmissions;
 * keep-alive probes wait two hours by default). Meanwhile every command timed out, so session
 * requests answered 503, and a deaf subscriber left the cross-instance bus silent while requests
 * still answered 200 (outside audit, 2026-11-27).
 *
 * ioredis's `socketTimeout` does the replacing: a connection that owes replies and has received
 * nothing for that long is destroyed, and ioredis connects again (and re-subscribes its channels).
 * A subscriber owes nothing while no message comes, so it is pinged (subscriber mode allows PING)
 * to give the timeout something to wait for. Slow but alive Redis answers within it and is left alone.
 */

/** Never sooner than this: a fork, an fsync or a failover can stall a live Redis for a second. */
const MIN_SILENCE_MS = 2_000;

/** The connection options: a reply owed for three command timeouts (at least two seconds) means the connection is gone. */
export function livenessOptions(timeoutMs: number): Pick<RedisOptions, "socketTimeout"> {
  return { socketTimeout: Math.max(3 * timeoutMs, MIN_SILENCE_MS) };
}

/** Logs each replacement for the operator; other connection errors reach the commands that fail. */
export function reportReplacements(client: IORedis, which: string): void {
  client.on("error", (error: unknown) => {
    if (error instanceof Error && error.message.startsWith("Socket timeout")) logWarning("redis", `${which} connection silent: replaced (${error.message})`);
  });
}

/** A PING every `everyMs` while the subscriber is connected; the timer never keeps a process alive. */
export function pingWhileSubscribed(client: IORedis, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (client.status === "ready") client.ping().catch(() => undefined);
  }, Math.max(250, everyMs));
  timer.unref?.();
  return () => clearInterval(timer);
}
