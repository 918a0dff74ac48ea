/**
 * Cancellation reaches the handler: its AbortSignal fires when the client cancels
 * (notifications/cancelled) and when the client's response stream goes away for longer than the
 * resume grace period (MCP_RESUME_GRACE_MS=1000 in tests). The fixture tool test_slow records
 * every abort; test_cancellations reads the record back.
 *
 * The record is shared by all sessions of the server and request ids are only unique per client,
 * so each test identifies its own entry by something unique: the abort reason it chose, or a
 * request id it minted.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, LATEST, openSession } from "../support/mcp-http";
import { initialize, openStream, postMessage, type Json } from "../support/raw-sessions";
import { SseReader, connectClient, messageOf, readCancellations, waitFor, type CancellationRecord } from "../support/sdk-client";

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;
const GRACE_MS = 1_000;

describe("cancellation", () => {
  it("aborting an SDK call sends notifications/cancelled and the server aborts that request's handler", async () => {
    const { client } = await connectClient(fixtureUrl());
    const reason = `e2e-sdk-abort-${randomUUID()}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(reason), 300);
    const started = Date.now();

    try {
      await expect(
        client.callTool({ name: "test_slow", arguments: { ms: 20_000 } }, undefined, { signal: controller.signal }),
      ).rejects.toThrow(reason);
    } finally {
      clearTimeout(timer);
    }
    expect(Date.now() - started).toBeLessThan(5_000);

    const entry = await waitFor(async () => (await readCancellations(client)).find((c) => c.reason === reason), { timeoutMs: 5_000 });
    expect(entry, "test_slow's AbortSignal never fired").toBeDefined();
    expect(typeof entry?.requestId).toBe("number"); // the SDK's own id for that call
    expect((entry?.at ?? 0) - started).toBeLessThan(5_000);
  });

  it("a client that closes its SSE response stream and does not resume gets its handler aborted after the grace period", async () => {
    const headers = await openSession(fixtureUrl(), LATEST);
    const requestId = `e2e-closed-stream-${randomUUID()}`;
    const controller = new AbortController();
    // ms / 10 is the first progress step: the response turns into a stream after ~1 s.
    const res = await fetch(fixtureUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: requestId,
        method: "tools/call",
        params: { name: "test_slow", arguments: { ms: 10_000 }, _meta: { progressToken: requestId } },
      }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    if (!res.body) throw new Error("no response body");
    const reader = new SseReader(res.body);
    const first = await reader.next(5_000);
    expect(first?.id).toBeTruthy();

    controller.abort();
    await reader.cancel();
    const closedAt = Date.now();

    // A fresh SDK session only to read the record (any session of the server sees it).
    const { client } = await connectClient(fixtureUrl());
    const mine = async (): Promise<CancellationRecord | undefined> => (await readCancellations(client)).find((c) => c.requestId === requestId);
    const entry = await waitFor(mine, { timeoutMs: GRACE_MS + 4_000, intervalMs: 150 });
    expect(entry, "the handler kept running after its client went away").toBeDefined();
    expect(entry?.reason).toBe("client went away");
    // Not before the grace period: a client could still have resumed the stream until then.
    expect((entry?.at ?? 0) - closedAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
  });

  it("ending a session (DELETE) aborts the handlers it still has running", async () => {
    const headers = await openSession(fixtureUrl(), LATEST);
    const requestId = `e2e-delete-${randomUUID()}`;
    const call = fetch(fixtureUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: requestId, method: "tools/call", params: { name: "test_slow", arguments: { ms: 20_000 } } }),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const del = await fetch(fixtureUrl(), { method: "DELETE", headers });
    expect(del.status).toBe(200);

    const { client } = await connectClient(fixtureUrl());
    const entry = await waitFor(async () => (await readCancellations(client)).find((c) => c.requestId === requestId), { timeoutMs: 3_000 });
    expect(entry?.reason).toBe("session terminated");
    await call;
  });

  it("on the stateless server a stranger's notifications/cancelled does not abort another client's call", async () => {
    const url = `${inject("statelessUrl")}/api/conformance/mcp`;
    const h = { "content-type": "application/json", accept: JSON_AND_SSE };
    const id = `e2e-stranger-${randomUUID()}`;
    const call = fetch(url, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_slow", arguments: { ms: 1_000 } } }),
    });
    await new Promise((r) => setTimeout(r, 200));
    const cancel = await fetch(url, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }),
    });
    expect(cancel.status).toBe(202);
    const res = await call;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, result: { content: [{ type: "text", text: "Waited 1000 ms" }] } });
  });

  // basic/transports §sending messages 6: disconnection is not a cancellation, and the server
  // SHOULD eventually answer. Past the grace period the request is given up, and its error
  // response is what a resume within the retention time replays; then the stream ends.
  it.each([
    { call: "a long call (test_slow)", params: { name: "test_slow", arguments: { ms: 20_000 } }, capabilities: {}, waitingOn: "notifications/progress" },
    { call: "a call waiting on elicitation", params: { name: "test_elicitation", arguments: { message: "Who are you?" } }, capabilities: { elicitation: {} }, waitingOn: "elicitation/create" },
  ])("$call, dropped and resumed after the grace period, ends with its request's error response", async ({ params, capabilities, waitingOn }) => {
    const s = await initialize(fixtureUrl(), { capabilities });
    expect((await postMessage(fixtureUrl(), s.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const requestId = `e2e-abandoned-${randomUUID()}`;
    const call = await openStream(fixtureUrl(), {
      method: "POST",
      headers: s.headers,
      body: { jsonrpc: "2.0", id: requestId, method: "tools/call", params: { ...params, _meta: { progressToken: requestId } } },
    });
    const waiting = await call.reader.until((e) => messageOf(e)?.method === waitingOn, 5_000);
    expect(waiting.id).toBeTruthy();
    await call.close();
    await new Promise((r) => setTimeout(r, GRACE_MS + 600));

    const resumed = await openStream(fixtureUrl(), { method: "GET", headers: { ...s.headers, "last-event-id": waiting.id! } });
    const replay = await resumed.reader.rest(5_000); // ends on its own: the stream is over
    const answers = replay.map(messageOf).filter((m): m is Json => m?.id === requestId && ("result" in m || "error" in m));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      jsonrpc: "2.0",
      id: requestId,
      error: { code: -32603, message: expect.stringMatching(new RegExp(`did not reconnect to its stream within ${GRACE_MS} ms`)) },
    });
  });
});
