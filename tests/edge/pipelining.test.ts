/**
 * HTTP/1.1 pipelining under `npm start` (lib/http/pipeline-depth.mjs): Node hands every request a
 * connection has sent to the app at once. 20,000 pipelined requests in one write ran together, 2 GB
 * of memory and the server deaf to others for half a minute (outside probe, 2026-11-29). A
 * connection with more than MAX_PIPELINED requests in flight is closed; a few pipelined ones are
 * answered, in order.
 */
import { connect } from "node:net";
import { describe, expect, inject, it } from "vitest";
import { MAX_PIPELINED } from "../../lib/http/pipeline-depth.mjs";

const base = () => inject("statefulUrl");

/** Writes `count` pipelined GETs of `path` in one write; what came back and whether the server closed the connection. */
function pipelined(path: string, count: number): Promise<{ text: string; closedByServer: boolean }> {
  const { hostname, port, host } = new URL(base());
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`.repeat(count));
    });
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    // Answered all and kept alive: ends when the test stops waiting.
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByServer: false });
    }, 3_000);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, closedByServer: true });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? undefined : reject(error)));
  });
}

const statuses = (text: string) => text.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];

describe("pipelined requests on one connection", () => {
  it(`up to ${MAX_PIPELINED} are all answered, in order, and the connection stays open`, async () => {
    const { text, closedByServer } = await pipelined("/api/health?probe=live", MAX_PIPELINED);
    expect(statuses(text)).toEqual(Array.from({ length: MAX_PIPELINED }, () => "HTTP/1.1 200"));
    expect(closedByServer).toBe(false);
  });

  it("thousands at once close the connection instead of running together; the server answers others throughout", async () => {
    const flood = pipelined("/api/health?probe=live", 5_000);
    const other = await fetch(`${base()}/api/health?probe=live`, { signal: AbortSignal.timeout(5_000) });
    expect(other.status).toBe(200);
    await other.body?.cancel();
    const { text, closedByServer } = await flood;
    expect(closedByServer).toBe(true);
    expect(statuses(text).length).toBeLessThanOrEqual(MAX_PIPELINED);
  });
});
