import { describe, expect, it } from "vitest";
import { LazyAbort } from "../../lib/mcp/transport/lazy-abort";
import { PendingRequests } from "../../lib/mcp/transport/pending-requests";
import { PostExchange } from "../../lib/mcp/transport/post-exchange";
import { StreamTable, type MirroredStream, type StreamMirror } from "../../lib/mcp/transport/resumable-streams";

/**
 * With a cluster, a resumable stream's id reaches the client in its priming event; a client that
 * resumes on another instance right away must find the stream in the shared log there. So the
 * SSE answer is handed over only once the log knows the stream (tests/scale-out 4b found the race:
 * a resume on B right after the drop got 404 when the answer left before the log's write).
 */
function slowLog(): { mirror: StreamMirror; open: () => void; opened: MirroredStream[] } {
  let release!: () => void;
  const written = new Promise<void>((resolve) => (release = resolve));
  const opened: MirroredStream[] = [];
  const mirror: StreamMirror = {
    opened: (stream) => {
      opened.push(stream);
      return written;
    },
    event: () => undefined,
    finished: () => undefined,
    attached: () => undefined,
  };
  return { mirror, open: () => release(), opened };
}

function exchange(streams: StreamTable): PostExchange {
  return new PostExchange({
    canStream: true,
    canJson: true,
    clientReady: true,
    batch: false,
    expected: 1,
    sessionId: "s-1",
    resumable: true,
    eventLog: true,
    retryMs: 1000,
    keepAliveMs: 0,
    headers: {},
    streams,
    pending: new PendingRequests(1000),
    abortAll: () => undefined,
  });
}

const settledYet = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe("a mirrored stream's answer waits for the shared log", () => {
  it("hands over the SSE response only after the log has the stream", async () => {
    const log = slowLog();
    const ex = exchange(new StreamTable({ maxEvents: 10, retentionMs: 1000, resumeGraceMs: 1000 }, log.mirror));
    // A notification upgrades the exchange to a stream (a call reporting progress).
    ex.notify(new LazyAbort(), "notifications/progress", { progressToken: "p", progress: 1 });
    expect(log.opened).toHaveLength(1);
    expect(ex.ready).toBeUndefined();
    expect(await settledYet(ex.response)).toBe(false);

    log.open();
    const response = await ex.response;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    // The priming event names the stream the log now knows.
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(`id: ${log.opened[0]!.id}_0`);
    await reader.cancel();
  });

  it("answers at once without a cluster", async () => {
    const ex = exchange(new StreamTable({ maxEvents: 10, retentionMs: 1000, resumeGraceMs: 1000 }));
    ex.notify(new LazyAbort(), "notifications/progress", { progressToken: "p", progress: 1 });
    expect(ex.ready?.headers.get("content-type")).toBe("text/event-stream");
    await ex.ready!.body!.cancel();
  });
});
