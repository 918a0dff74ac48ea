import type { Redis as IORedis } from "ioredis";
import { livenessOptions, reportReplacements } from "./connection-watchdog";

/**
 * One command connection per Redis URL for the whole process, shared by the cluster state
 * (sessions, stream logs, the bus's PUBLISH) and the rate limiter, with ioredis's
 * auto-pipelining: the commands issued in one turn of the event loop leave in one write and are
 * answered in one read. A session request issues its session read and its budget check together
 * (transport/session/post.ts), so with REDIS_URL the two cost one round trip, not one each on
 * two connections.
 *
 * Commands wait for the first connection at most `timeoutMs`, then fail (the callers decide: 503
 * for the cluster state, the failure policy for the limiter, which also bounds its own wait).
 * Once connected, a command issued while the connection is down fails at once: ioredis's offline
 * queue would hold it and send it when Redis came back, after its caller had been told it failed
 * (an outside review found requests refused 503 during an outage charged to their caller's budget
 * once Redis returned).
 * Reconnection goes on in the background, and a connection that has gone silent without closing
 * is replaced (connection-watchdog.ts). The library is loaded on first use, so a process
 * configured without Redis never loads it.
 */
const connections = new Map<string, Promise<IORedis>>();

export function sharedIoredis(url: string, timeoutMs: number): Promise<IORedis> {
  let made = connections.get(url);
  if (!made) {
    made = import("ioredis").then(({ Redis }) => {
      const client = new Redis(url, {
        enableAutoPipelining: true,
        maxRetriesPerRequest: 1,
        connectTimeout: timeoutMs,
        commandTimeout: timeoutMs,
        retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
        ...livenessOptions(timeoutMs),
        // Every command's caller has been told it failed (commandTimeout) when its connection is
        // replaced: resent on the new one, it would run twice if the old bytes land as well (a
        // budget spent twice, a session made twice after its initialize was refused 503).
        autoResendUnfulfilledCommands: false,
      });
      client.on("error", () => undefined); // a failing command reports it; reconnection is automatic
      // A cold start's first commands wait for the connection; from then on nothing is queued.
      client.once("ready", () => {
        client.options.enableOfflineQueue = false;
      });
      reportReplacements(client, "command");
      return client;
    });
    connections.set(url, made);
  }
  return made;
}
