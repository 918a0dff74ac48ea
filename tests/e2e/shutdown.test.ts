/**
 * SIGTERM (a container runtime stopping `npm start`): the server ends its long-lived streams and
 * exits. Next stops taking connections and waits for the open ones; a subscriptions/listen or a
 * GET stream never ends by itself (280 s lifetimes), so the process stayed until killed and every
 * listener was dropped without its result (outside audit). basic/patterns/subscriptions §graceful
 * closure: a server tearing a subscription down SHOULD send its result, then close the stream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startOwnServer } from "../support/own-server";
import { messageOf, type SseEvent } from "../support/sdk-client";
import { V2026, initialize, isRecord, methodOf, openStream, postMessage } from "../support/raw-sessions";

let server: RunningNextServer;

beforeAll(async () => {
  server = await startOwnServer();
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe("SIGTERM", () => {
  it("ends each listen with its result and closes each GET stream, then the process exits", async () => {
    const url = `${server.url}/api/mcp`;
    const listenId = "listen-at-shutdown";
    const listen = await openStream(url, {
      method: "POST",
      headers: { "mcp-protocol-version": V2026, "mcp-method": "subscriptions/listen" },
      body: {
        jsonrpc: "2.0",
        id: listenId,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} } },
      },
    });
    const ack = await listen.reader.next(5_000);
    expect(ack && methodOf(ack)).toBe("notifications/subscriptions/acknowledged");
    const session = await initialize(url);
    expect((await postMessage(url, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const get = await openStream(url, { method: "GET", headers: session.headers });

    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code: number | null) => resolve(code)));
    const startedAt = Date.now();
    server.child.kill("SIGTERM");

    const listenRest: SseEvent[] = await listen.reader.rest(10_000);
    const result = listenRest.map(messageOf).find((m) => m?.id === listenId);
    expect(result, JSON.stringify(listenRest)).toBeDefined();
    expect(isRecord(result?.result) && result.result._meta).toMatchObject({ "io.modelcontextprotocol/subscriptionId": listenId });
    await get.reader.rest(10_000);
    // Exits well before any stream's lifetime (280 s) would have ended it.
    await exited;
    expect(Date.now() - startedAt).toBeLessThan(10_000);
  }, 60_000);
});
