/**
 * SSE streams on the wire: the session's GET stream, resuming a POST response stream the server
 * closed on purpose (2025-11-25 SSE polling, SEP-1699) with GET + Last-Event-ID, and refusing a
 * Last-Event-ID its stream never issued.
 */
import { describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, LATEST, openSession, post } from "../support/mcp-http";
import { callTool, initialize, isRecord, methodOf, openStream, postMessage, request } from "../support/raw-sessions";
import { ALL_SCOPES, newSubject, tokenFor } from "../support/auth";
import { signAccessToken } from "../../lib/authorization-server/key-file";
import { SseReader, connectClient, messageOf, textOf } from "../support/sdk-client";

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;
const productUrl = () => `${inject("statefulUrl")}/api/mcp`;

describe("SSE streams", () => {
  it("GET with Accept: text/event-stream on a session opens the server's stream (200 text/event-stream)", async () => {
    const headers = await openSession(productUrl(), LATEST);
    const controller = new AbortController();
    try {
      const res = await fetch(productUrl(), { method: "GET", headers: { accept: "text/event-stream", ...headers }, signal: controller.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(res.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"]);
      if (!res.body) throw new Error("no response body");
      const reader = res.body.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      // 2025-11-25 primes the stream: an event with an id and empty data.
      expect(new TextDecoder().decode(first.value)).toMatch(/^id: \S+\n(retry: \d+\n)?data: \n\n/);
      await reader.cancel();
    } finally {
      controller.abort();
    }
  });

  // basic/transports: the server MUST answer the GET with Content-Type text/event-stream (or 405).
  // Before 2025-11-25 there is no priming event, so a comment must carry the headers out at once:
  // they used to wait for the first keep-alive, 30 s later.
  it.each(["2025-03-26", "2025-06-18"])("at %s the GET stream's 200 and its Content-Type arrive at once (a comment, not an event)", async (version) => {
    const headers = await openSession(productUrl(), version);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5_000);
    try {
      const res = await fetch(productUrl(), { method: "GET", headers: { accept: "text/event-stream", ...headers }, signal: controller.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toMatch(/^: [^\n]*\n\n$/);
      await reader.cancel();
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  });

  it("a POST stream closed by the server (test_reconnection) is primed, closes, and GET with Last-Event-ID replays the result", async () => {
    const headers = await openSession(fixtureUrl(), LATEST);
    const res = await fetch(fixtureUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "test_reconnection", arguments: {} } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    if (!res.body) throw new Error("no response body");

    const events = await new SseReader(res.body).rest(3_000); // ends: the server closed the stream
    const priming = events[0];
    expect(priming?.id).toBeTruthy();
    expect(priming?.data).toBe("");
    expect(priming?.retry).toBeGreaterThan(0);
    expect(events.map(messageOf).filter((m) => m?.id === 42)).toEqual([]); // the result is not on this connection
    const lastEventId = events.at(-1)?.id ?? "";

    const resumed = await fetch(fixtureUrl(), {
      method: "GET",
      headers: { accept: "text/event-stream", "last-event-id": lastEventId, ...headers },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("content-type")).toBe("text/event-stream");
    if (!resumed.body) throw new Error("no response body");
    const replay = new SseReader(resumed.body);
    const answer = await replay.until((e) => messageOf(e)?.id === 42, 5_000);
    expect(answer.id).toBeTruthy();
    expect(messageOf(answer)).toMatchObject({
      jsonrpc: "2.0",
      id: 42,
      result: { content: [{ type: "text", text: "Reconnection test completed" }] },
    });
    // The call is complete: the resumed stream ends too.
    await expect(replay.rest(3_000)).resolves.toEqual([]);
  });

  // basic/transports §resumability: event ids are a cursor within their stream.
  it("a Last-Event-ID its stream never issued is 400 (the session stays valid) and leaves the stream alone; the last real one resumes it, and ids count on from there", async () => {
    const headers = await openSession(productUrl(), LATEST);
    const get = await openStream(`${productUrl()}?events=named`, { method: "GET", headers });
    const connected = await get.reader.until((e) => e.event === "connected", 5_000);
    const real = connected.id ?? "";
    const streamId = real.slice(0, real.lastIndexOf("_"));
    expect(real).toBe(`${streamId}_1`); // the priming event was _0

    // Beyond the last id, and ids Number() would read as 1 that the server never writes.
    for (const forged of [`${streamId}_2`, `${streamId}_999999`, `${streamId}_01`, `${streamId}_+1`, `${streamId}_1e0`, `${streamId}_`]) {
      const res = await fetch(productUrl(), { method: "GET", headers: { accept: "text/event-stream", "last-event-id": forged, ...headers }, signal: AbortSignal.timeout(5_000) });
      if (res.status !== 400) await res.body?.cancel();
      expect(res.status, forged).toBe(400);
      expect(((await res.json()) as { error?: { code?: number } }).error?.code, forged).toBe(-32600);
    }
    // None of them took the stream over: its connection is still open, with nothing new on it.
    await expect(get.reader.next(500)).rejects.toThrow(/no SSE event/);

    const resumed = await openStream(productUrl(), { method: "GET", headers: { ...headers, "last-event-id": real } });
    await expect(get.reader.next(2_000)).resolves.toBeUndefined(); // taken over by the resume
    // The session's tool run is a named event on its stream, numbered after the id resumed from.
    const called = await post(productUrl(), { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "suggest_names", arguments: { style: "elvish", kind: "place", count: 2 } } }, headers);
    expect(called.status).toBe(200);
    const complete = await resumed.reader.until((e) => e.event === "tool-complete", 5_000);
    expect(complete.id).toBe(`${streamId}_2`);
  });

  // Outside probe, 2026-11-29: a stream keeps its last 1,000 events; a resume from an id before
  // them was answered 200 and replayed from the oldest kept, 50 updates skipped without a word.
  it("a Last-Event-ID older than the events its stream still keeps is 400, not a replay that skips the dropped ones", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("sse-kept"));
    const s = await initialize(productUrl(), { token });
    expect((await postMessage(productUrl(), s.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const created = await callTool(productUrl(), s.headers, "create_world", { name: "Busy World" });
    const worldId = isRecord(created.structuredContent) && isRecord(created.structuredContent.world) ? String(created.structuredContent.world.id) : "";
    // update_world announces these five: five events a call on the session's stream.
    for (const uri of [`world://${worldId}`, `world://${worldId}/characters`, `world://${worldId}/export.md`, `world://${worldId}/export.json`, "worlds://list"]) {
      await request(productUrl(), s.headers, "resources/subscribe", { uri });
    }
    const get = await openStream(productUrl(), { method: "GET", headers: s.headers });
    const primed = (await get.reader.next(5_000))?.id ?? "";
    expect(primed).toMatch(/_0$/);
    let heard = 0;
    let latest = primed;
    for (let i = 0; heard < 1_010; i++) {
      await callTool(productUrl(), s.headers, "update_world", { worldId, tone: `tone ${i}` });
      for (let n = 0; n < 5; n++) {
        const event = await get.reader.until((e) => methodOf(e) === "notifications/resources/updated", 5_000);
        heard++;
        latest = event.id ?? latest;
      }
    }
    await get.close();

    const tooOld = await fetch(productUrl(), { method: "GET", headers: { accept: "text/event-stream", "last-event-id": primed, ...s.headers }, signal: AbortSignal.timeout(5_000) });
    expect(tooOld.status).toBe(400);
    expect(((await tooOld.json()) as { error?: { message?: string } }).error?.message).toMatch(/unknown or expired/);
    // The stream itself is untouched: the newest id resumes it.
    const resumed = await openStream(productUrl(), { method: "GET", headers: { ...s.headers, "last-event-id": latest } });
    await callTool(productUrl(), s.headers, "update_world", { worldId, tone: "after" });
    expect(methodOf(await resumed.reader.until((e) => methodOf(e) === "notifications/resources/updated", 5_000))).toBe("notifications/resources/updated");
  }, 120_000);

  // Outside probe, 2026-11-29: a listen kept delivering its user's updates for its whole lifetime
  // (280 s) after the token that opened it had expired and was refused 401 everywhere else.
  it("a GET stream and a subscriptions/listen opened with a token end when it expires, not at their lifetime", async () => {
    const origin = new URL(productUrl()).origin;
    const shortLived = () => signAccessToken(inject("devIssuerDir"), { issuer: origin, audience: productUrl(), subject: newSubject("sse-expiring"), scopes: ALL_SCOPES, ttlSeconds: 3 });
    const session = await initialize(productUrl(), { token: await shortLived() });
    expect((await postMessage(productUrl(), session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const get = await openStream(productUrl(), { method: "GET", headers: session.headers });
    const listen = await openStream(productUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${await shortLived()}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
      body: {
        jsonrpc: "2.0",
        id: "listen-expiring",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      },
    });
    const openedAt = Date.now();
    // Both end by themselves within the token's 3 s (and a second's rounding): rest() returns at their end.
    const [getEvents, listenEvents] = await Promise.all([get.reader.rest(8_000), listen.reader.rest(8_000)]);
    expect(Date.now() - openedAt).toBeLessThan(7_000);
    expect(getEvents.length).toBeGreaterThan(0); // its priming event
    // A listen ends with its result (subscriptions §graceful closure), as at the end of its lifetime.
    expect(listenEvents.map(messageOf).some((m) => m?.id === "listen-expiring" && isRecord(m.result))).toBe(true);
  }, 30_000);

  // Outside audit (2026-11-28): resumed after the grace period (MCP_RESUME_GRACE_MS, 1 s in tests), a
  // GET stream was answered 200 and closed at once, on every retry, and heard nothing more.
  it("a GET stream resumed after the grace period goes on as the session's stream, not replayed and closed", async () => {
    const headers = await openSession(productUrl(), LATEST);
    const get = await openStream(`${productUrl()}?events=named`, { method: "GET", headers });
    const connected = await get.reader.until((e) => e.event === "connected", 5_000);
    await get.close();
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const resumed = await openStream(`${productUrl()}?events=named`, { method: "GET", headers: { ...headers, "last-event-id": connected.id ?? "" } });
    const called = await post(productUrl(), { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "suggest_names", arguments: { style: "elvish", kind: "place", count: 2 } } }, headers);
    expect(called.status).toBe(200);
    const complete = await resumed.reader.until((e) => e.event === "tool-complete", 5_000);
    // Its events are numbered in the stream it goes on as.
    expect(complete.id).toMatch(/^[\w-]+_\d+$/);
  });

  it("the SDK client resumes a server-closed POST stream on its own and gets the result of test_reconnection", async () => {
    const { client } = await connectClient(fixtureUrl());
    const result = await client.callTool({ name: "test_reconnection", arguments: {} }, undefined, { timeout: 10_000 });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("Reconnection test completed");
  });
});
