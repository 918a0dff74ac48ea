/**
 * A call's instance dies mid-call (kill -9: a crash, a serverless instance reclaimed) while its
 * client follows the call's stream through another instance. Outside review, 2026-11-28: the
 * follower saw keep-alives until the stream's lifetime (280 s) and no answer, and every later
 * resume the same, for as long as the log lived (2 h). Now the follower notices the owner's lapsed
 * liveness (lib/cluster/redis-cluster.ts) and answers the request with -32603, then ends: within
 * MCP_INSTANCE_LIVENESS_MS and a third of it (shortened here to 3 s; 15 s by default).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageOf, type SseEvent } from "../support/sdk-client";
import { callTool, initialize, isRecord, methodOf, openStream, postMessage, request, uniqueId } from "../support/raw-sessions";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";

/** MCP_INSTANCE_LIVENESS_MS on both instances. */
const LIVENESS_MS = 3_000;
let cluster: TwoInstances;
let FA = "";
let FB = "";

beforeAll(async () => {
  cluster = await startTwoInstances({ prefix: "wc_dead_owner", env: { MCP_INSTANCE_LIVENESS_MS: String(LIVENESS_MS) } });
  FA = `${cluster.a.url}/api/conformance/mcp`;
  FB = `${cluster.b.url}/api/conformance/mcp`;
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const answerTo = (events: readonly SseEvent[], id: string) => events.map(messageOf).find((m) => m?.id === id);

describe("a call whose instance dies while its client follows it on another", () => {
  it("is answered -32603 on the follower within the liveness lapse, and again at once by a later resume", async () => {
    const s = await initialize(FA);
    expect((await postMessage(FA, s.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const callId = uniqueId("doomed");
    const progressToken = uniqueId("progress");
    const call = await openStream(FA, {
      method: "POST",
      headers: s.headers,
      body: { jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "test_slow", arguments: { ms: 60_000 }, _meta: { progressToken } } },
    });
    // The first progress (after 6 s) has an id to resume from.
    let lastEventId: string | undefined;
    while (lastEventId === undefined) {
      const event = await call.reader.next(15_000);
      if (!event) throw new Error("the call's stream ended before its first progress");
      const message = messageOf(event);
      if (event.id !== undefined && message?.method === "notifications/progress" && isRecord(message.params) && message.params.progressToken === progressToken) lastEventId = event.id;
    }
    await call.close();

    const followed = await openStream(FB, { method: "GET", headers: { ...s.headers, "last-event-id": lastEventId } });
    process.kill(cluster.a.pid, "SIGKILL");
    const killedAt = Date.now();
    const events = await followed.reader.rest(45_000); // ends once B has answered for the dead owner
    const noticedAfter = Date.now() - killedAt;
    const answer = answerTo(events, callId);
    expect(answer, JSON.stringify(events.map((e) => e.data))).toMatchObject({ jsonrpc: "2.0", id: callId, error: { code: -32603 } });
    expect(String((answer?.error as { message?: unknown }).message)).toMatch(/instance serving this request stopped/);
    // Liveness lapses within LIVENESS_MS of its last renewal; the follower reads the log three
    // times within it. (With the default 15 s this took 15–20 s.)
    expect(noticedAfter).toBeLessThan(LIVENESS_MS * 2 + 2_000);

    const resumedAt = Date.now();
    const again = await openStream(FB, { method: "GET", headers: { ...s.headers, "last-event-id": lastEventId } });
    const later = await again.reader.rest(10_000);
    expect(answerTo(later, callId)).toMatchObject({ id: callId, error: { code: -32603 } });
    expect(Date.now() - resumedAt).toBeLessThan(3_000);
  }, 90_000);
});

// Outside probe, 2026-11-29: a GET stream whose instance was killed, resumed through another
// instance once the owner's liveness had lapsed, answered ": resumed" and closed at once, every
// time: a client that keeps its Last-Event-ID (EventSource) never heard from the session again.
describe("a session's GET stream whose instance dies", () => {
  let pair: TwoInstances;
  beforeAll(async () => {
    pair = await startTwoInstances({ prefix: "wc_dead_get", env: { MCP_INSTANCE_LIVENESS_MS: String(LIVENESS_MS) } });
  }, 90_000);
  afterAll(async () => {
    await pair?.stop();
  }, 60_000);

  it("resumed on the other instance after the lapse, is replayed and followed by a new stream there that hears the session's updates", async () => {
    const [A, B] = [`${pair.a.url}/api/mcp`, `${pair.b.url}/api/mcp`];
    const token = await pair.tokenFor(`dead-get-${uniqueId("owner")}`);
    const writer = await initialize(B, { token });
    expect((await postMessage(B, writer.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const created = await callTool(B, writer.headers, "create_world", { name: "Orphaned Stream World" });
    const world = isRecord(created.structuredContent) && isRecord(created.structuredContent.world) ? created.structuredContent.world.id : undefined;
    expect(typeof world).toBe("string");
    const s = await initialize(A, { token });
    expect((await postMessage(A, s.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    await request(A, s.headers, "resources/subscribe", { uri: `world://${String(world)}` });

    // 2025-11-25 primes a GET stream with an event id: the place to resume from.
    const onA = await openStream(A, { method: "GET", headers: s.headers });
    const primed = await onA.reader.next(10_000);
    expect(primed?.id).toBeTruthy();
    process.kill(pair.a.pid, "SIGKILL");
    await onA.close();
    await new Promise((resolve) => setTimeout(resolve, LIVENESS_MS * 2 + 1_000));

    const onB = await openStream(B, { method: "GET", headers: { ...s.headers, "last-event-id": String(primed?.id) } });
    let heard = false;
    for (let i = 0; i < 10 && !heard; i++) {
      await callTool(B, writer.headers, "update_world", { worldId: world, tone: `tone ${i}` });
      const event = await onB.reader.until((e) => methodOf(e) === "notifications/resources/updated", 1_000).catch(() => undefined);
      heard = event !== undefined;
    }
    expect(heard, "an update on the resumed stream").toBe(true);
  }, 90_000);
});
