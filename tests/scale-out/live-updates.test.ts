/**
 * Live updates across instances (issue 24, item 5): a write through instance B reaches the
 * subscribers on instance A as notifications/resources/updated — a 2025-11-25 session subscribed
 * with resources/subscribe (the official 1.x client, its GET stream on A) and a 2026-07-28
 * subscriptions/listen stream on A. Only the named resources are announced, and never another
 * user's: user 2 subscribes to user 1's world by its URI and hears nothing of it. Nor to a token
 * without the scopes a read needs: such a listen is refused as resources/subscribe is, and a URI
 * above the resources carries none of theirs.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectClient, messageOf, sleep, type SseEvent } from "../support/sdk-client";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";
import { V2026, callTool, initialize, isRecord, methodOf, openStream, postMessage, request, uniqueId, type Json, type SessionRef } from "../support/raw-sessions";

const newSubject = (name: string) => `live-${name}-${randomUUID().slice(0, 8)}`;
const META_2026 = { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} };

describe("resource updates reach subscribers on the other instance", () => {
  let cluster: TwoInstances;
  let A = "";
  let B = "";

  beforeAll(async () => {
    cluster = await startTwoInstances({ prefix: "wc_live" });
    A = `${cluster.a.url}/api/mcp`;
    B = `${cluster.b.url}/api/mcp`;
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** A 2025-11-25 session on B that writes as `subject`. */
  async function writerOnB(subject: string): Promise<SessionRef> {
    const s = await initialize(B, { token: await cluster.tokenFor(subject) });
    expect((await postMessage(B, s.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    return s;
  }

  async function createWorld(writer: SessionRef, name: string): Promise<string> {
    const result = await callTool(B, writer.headers, "create_world", { name });
    const world = isRecord(result.structuredContent) ? result.structuredContent.world : undefined;
    if (!isRecord(world) || typeof world.id !== "string") throw new Error(`create_world: ${JSON.stringify(result).slice(0, 300)}`);
    return world.id;
  }

  it("2025-11-25: the 1.x client subscribed on A hears of writes on B to its world only", async () => {
    const owner = newSubject("owner");
    const other = newSubject("other");
    const mine = await writerOnB(owner);
    const theirs = await writerOnB(other);
    const x = await createWorld(mine, "Subscribed World");
    const y = await createWorld(mine, "Unsubscribed World");
    const z = await createWorld(theirs, "Someone Else's World");

    const heard: string[] = [];
    const { client } = await connectClient(A, {
      token: await cluster.tokenFor(owner),
      setup: (c) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri)),
    });
    await client.subscribeResource({ uri: `world://${x}` });
    // Knowing another user's world id is not enough: the subscription is accepted, never served.
    await client.subscribeResource({ uri: `world://${z}` });

    // The client opens its GET stream on its own after initialize; write until it hears.
    for (let i = 0; i < 20 && !heard.includes(`world://${x}`); i++) {
      await callTool(B, mine.headers, "update_world", { worldId: x, tone: `tone ${i}` });
      await sleep(250);
    }
    expect(heard).toContain(`world://${x}`);

    heard.length = 0;
    await callTool(B, mine.headers, "update_world", { worldId: y, tone: "quiet" });
    await callTool(B, theirs.headers, "update_world", { worldId: z, tone: "private" });
    await callTool(B, mine.headers, "create_character", { worldId: x, name: "Ada" });
    for (let i = 0; i < 40 && !heard.includes(`world://${x}`); i++) await sleep(100);
    // Announced in the order written (one publisher, one bus): the character came last.
    expect(heard).toEqual([`world://${x}`]);

    // Deleting the world announces it too (the 1.x client declares no elicitation: confirmName).
    heard.length = 0;
    await callTool(B, mine.headers, "delete_world", { worldId: x, confirmName: "Subscribed World" });
    for (let i = 0; i < 40 && !heard.includes(`world://${x}`); i++) await sleep(100);
    expect(heard).toEqual([`world://${x}`]);
  }, 60_000);

  const isUpdate = (e: SseEvent) => methodOf(e) === "notifications/resources/updated";

  /** A new world of `owner`'s (written through B), and a 2025-11-25 session of theirs on A subscribed to it. */
  async function subscribedOnA(owner: string, worldName: string) {
    const mine = await writerOnB(owner);
    const x = await createWorld(mine, worldName);
    const session = await initialize(A, { token: await cluster.tokenFor(owner) });
    expect((await postMessage(A, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    await request(A, session.headers, "resources/subscribe", { uri: `world://${x}` });
    return { mine, x, session };
  }

  /**
   * A 2025-11-25 session on A subscribed to a new world of its owner's, with a GET stream on A and,
   * 300 ms later, a newer one on B. The newer stream's announcement travels the bus: writes go on
   * until the newer stream hears one (`heard`).
   */
  async function streamsOnAThenB(label: string, worldName: string) {
    const { mine, x, session } = await subscribedOnA(newSubject(label), worldName);
    const older = await openStream(A, { method: "GET", headers: session.headers });
    await sleep(300);
    const newer = await openStream(B, { method: "GET", headers: session.headers });
    let heard: SseEvent | undefined;
    for (let i = 0; i < 20 && !heard; i++) {
      await callTool(B, mine.headers, "update_world", { worldId: x, tone: `tone ${i}` });
      heard = await newer.reader.until(isUpdate, 500).catch(() => undefined);
    }
    return { mine, x, session, older, newer, heard };
  }

  it("2025-11-25: a session with a GET stream on each instance hears each update once, on its newest stream", async () => {
    // An outside audit: each instance delivered to the newest stream it held, so a session with
    // one on A and one on B heard every message twice (basic/transports §multiple connections:
    // each message on one stream only, never broadcast).
    const { mine, x, older, newer, heard } = await streamsOnAThenB("two-streams", "Twice Watched World");
    expect(heard && messageOf(heard)?.params).toMatchObject({ uri: `world://${x}` });
    // Later writes too reach the newest stream alone; the older one stays open and silent.
    await callTool(B, mine.headers, "update_world", { worldId: x, tone: "once more" });
    await newer.reader.until(isUpdate, 5_000);
    const late: SseEvent[] = [];
    for (;;) {
      const event = await older.reader.next(1_500).catch(() => undefined);
      if (!event) break;
      late.push(event);
    }
    // B announced its stream before any write, on the same bus as the updates: A heard it first.
    expect(late.filter(isUpdate), "updates on the older stream").toEqual([]);
  }, 60_000);

  it("2025-11-25: when the newest GET stream, on B, loses its client, the older one still connected on A carries the updates", async () => {
    // An outside review: the older stream stayed silent for good, while the update went to the
    // newer one's resume log (and past the grace period nowhere). basic/transports §multiple
    // connections: each message on one of the *connected* streams.
    const { mine, x, session, older, newer, heard } = await streamsOnAThenB("fallback", "Fallback World");
    expect(heard).toBeDefined();
    // The last id the newer stream's client saw (a late update of the loop included).
    let newerId = heard?.id ?? "";
    for (;;) {
      const event = await newer.reader.next(1_000).catch(() => undefined);
      if (!event) break;
      newerId = event.id ?? newerId;
    }
    await newer.close();
    // B notices the closed connection and tells A over the bus.
    await sleep(500);
    await callTool(B, mine.headers, "update_world", { worldId: x, tone: "newer gone" });
    const fallback = await older.reader.until(isUpdate, 5_000);
    expect(messageOf(fallback)?.params).toMatchObject({ uri: `world://${x}` });
    // The newer stream's log did not keep it too: its resume replays no update.
    const resumed = await openStream(B, { method: "GET", headers: { ...session.headers, "last-event-id": newerId } });
    const replayed: SseEvent[] = [];
    for (;;) {
      const event = await resumed.reader.next(1_000).catch(() => undefined);
      if (!event) break;
      replayed.push(event);
    }
    expect(replayed.filter(isUpdate), "updates replayed on the newer stream").toEqual([]);
  }, 60_000);

  it("2025-11-25: a GET stream given up on A, resumed through B past the grace period, is replayed and followed by a new stream that carries the updates", async () => {
    // An outside review: through another instance the resume answered ": resumed", replayed and
    // closed at once, where the owning instance opens a new stream; a client that keeps its
    // Last-Event-ID (EventSource) came back to the same end for good.
    const { mine, x, session } = await subscribedOnA(newSubject("late-resume"), "Late Resume World");
    const first = await openStream(A, { method: "GET", headers: session.headers });
    const primed = await first.reader.next(5_000);
    expect(primed?.data).toBe("");
    await first.close();
    // Past MCP_RESUME_GRACE_MS (5 s), A gives the stream up; its log stays MCP_STREAM_RETENTION_MS (1.5 s) more.
    await sleep(5_700);
    const resumed = await openStream(B, { method: "GET", headers: { ...session.headers, "last-event-id": primed?.id ?? "" } });
    let heard: SseEvent | undefined;
    for (let i = 0; i < 10 && !heard; i++) {
      await callTool(B, mine.headers, "update_world", { worldId: x, tone: `late ${i}` });
      heard = await resumed.reader.until(isUpdate, 500).catch(() => undefined);
    }
    expect(heard && messageOf(heard)?.params).toMatchObject({ uri: `world://${x}` });
  }, 60_000);

  it("2025-11-25: a stream resumed while its connection is still open, through either instance, ends that connection: each message goes out once", async () => {
    // Outside probe (2026-11-29): a resume through B left A's connection open, and every later
    // message went out on both (basic/transports §multiple connections: on one stream only, never
    // broadcast); repeated resumes through B left each relay open too.
    const { mine, x, session } = await subscribedOnA(newSubject("resume-open"), "Resumed World");
    const update = async (reader: { until(m: (e: SseEvent) => boolean, t?: number): Promise<SseEvent> }, tone: string) => {
      await callTool(B, mine.headers, "update_world", { worldId: x, tone });
      // The bus brings it at once; the log's periodic check (a third of the liveness) would be later.
      return reader.until(isUpdate, 1_500);
    };
    const resume = (url: string, lastEventId: string | undefined) => openStream(url, { method: "GET", headers: { ...session.headers, "last-event-id": lastEventId ?? "" } });

    const onA = await openStream(A, { method: "GET", headers: session.headers });
    const first = await update(onA.reader, "first");
    // Through B (a relay of A's stream): A's connection ends, with nothing more on it.
    const viaB = await resume(B, first.id);
    expect((await onA.reader.rest(5_000)).filter(isUpdate)).toEqual([]);
    const second = await update(viaB.reader, "second");
    // Through B again: the first relay ends.
    const viaBAgain = await resume(B, second.id);
    expect((await viaB.reader.rest(5_000)).filter(isUpdate)).toEqual([]);
    const third = await update(viaBAgain.reader, "third");
    // Back on A, the stream's owner: the relay on B ends.
    const backOnA = await resume(A, third.id);
    expect((await viaBAgain.reader.rest(5_000)).filter(isUpdate)).toEqual([]);
    const fourth = await update(backOnA.reader, "fourth");
    expect(new Set([first, second, third, fourth].map((e) => e.id)).size).toBe(4);
  }, 60_000);

  it("2026-07-28: a subscriptions/listen stream on A hears of the resources it names, its user's only", async () => {
    const owner = newSubject("listener");
    const other = newSubject("stranger");
    const mine = await writerOnB(owner);
    const theirs = await writerOnB(other);
    const x = await createWorld(mine, "Listened World");
    const y = await createWorld(mine, "Quiet World");
    const z = await createWorld(theirs, "Stranger's World");

    const listenId = uniqueId("listen");
    const listen = await openStream(A, {
      method: "POST",
      headers: { authorization: `Bearer ${await cluster.tokenFor(owner)}`, "mcp-protocol-version": V2026, "mcp-method": "subscriptions/listen" },
      body: {
        jsonrpc: "2.0",
        id: listenId,
        method: "subscriptions/listen",
        params: { notifications: { resourceSubscriptions: [`world://${x}`, `world://${z}`] }, _meta: META_2026 },
      },
    });
    const ack = await listen.reader.next(5_000);
    expect(ack && methodOf(ack)).toBe("notifications/subscriptions/acknowledged");

    await callTool(B, mine.headers, "update_world", { worldId: y, tone: "still" });
    await callTool(B, theirs.headers, "update_world", { worldId: z, tone: "secret" });
    const created = await callTool(B, mine.headers, "create_character", { worldId: x, name: "Bo" });
    expect(created.isError).toBeUndefined();

    const updates: Json[] = [];
    const isUpdate = (e: SseEvent) => methodOf(e) === "notifications/resources/updated";
    // A subscription to world://x covers its sub-resources (its characters page, its exports).
    for (;;) {
      const event = await listen.reader.until(isUpdate, 10_000);
      const params = messageOf(event)?.params;
      if (!isRecord(params)) throw new Error("resources/updated without params");
      updates.push(params);
      if (params.uri === `world://${x}/export.json`) break;
    }
    expect(updates.map((u) => u.uri)).toEqual([`world://${x}`, `world://${x}/characters`, `world://${x}/export.md`, `world://${x}/export.json`]);
    for (const u of updates) expect(u._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": listenId });
  }, 60_000);

  /** A request that should be refused: its status, challenge and JSON-RPC error (a stream that opens instead is closed at once). */
  async function refusalOf(url: string, headers: Record<string, string>, message: Json) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(message), signal: AbortSignal.timeout(10_000) });
    if (res.status === 200) await res.body?.cancel();
    const body = res.status === 200 ? undefined : ((await res.json()) as Json);
    return { status: res.status, challenge: res.headers.get("www-authenticate"), id: body?.id, error: body?.error };
  }

  it("2026-07-28: a listen needs the scopes reading its resources needs, refused as resources/subscribe is; a URI above them carries none a token may not read", async () => {
    const owner = newSubject("scoped");
    const mine = await writerOnB(owner);
    const x = await createWorld(mine, "Guarded World");
    const uri = `world://${x}`;
    const openidOnly = await cluster.tokenFor(owner, ["openid"]);
    const headers2026 = (method: string, name?: string) => ({
      authorization: `Bearer ${openidOnly}`,
      "mcp-protocol-version": V2026,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    });

    // 2025-11-25: resources/subscribe of the world needs worlds:read (basic/authorization §runtime insufficient scope).
    const session = await initialize(A, { token: openidOnly });
    expect((await postMessage(A, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const subscribe = await refusalOf(A, session.headers, { jsonrpc: "2.0", id: "subscribe-1", method: "resources/subscribe", params: { uri } });
    expect(subscribe.status).toBe(403);
    expect(subscribe.challenge).toMatch(/error="insufficient_scope"/);
    expect(subscribe.challenge).toMatch(/scope="worlds:read"/);

    // 2026-07-28: a listen naming the world is refused exactly as reading it is.
    const read = await refusalOf(A, headers2026("resources/read", uri), { jsonrpc: "2.0", id: "read-1", method: "resources/read", params: { uri, _meta: META_2026 } });
    expect(read.status).toBe(403);
    const listen = await refusalOf(A, headers2026("subscriptions/listen"), {
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: [uri] }, _meta: META_2026 },
    });
    expect(listen).toEqual({ ...read, id: "listen-1" });
    expect(listen.challenge).toBe(subscribe.challenge);

    // "world:" names no resource, so opening it needs no scope; it covers every world below it,
    // and each update goes only to a stream whose token may read that world.
    const listenAbove = async (token: string) => {
      const stream = await openStream(A, {
        method: "POST",
        headers: { ...headers2026("subscriptions/listen"), authorization: `Bearer ${token}` },
        body: { jsonrpc: "2.0", id: uniqueId("listen"), method: "subscriptions/listen", params: { notifications: { resourceSubscriptions: ["world:"] }, _meta: META_2026 } },
      });
      const ack = await stream.reader.next(5_000);
      expect(ack && methodOf(ack)).toBe("notifications/subscriptions/acknowledged");
      return stream;
    };
    const withoutRead = await listenAbove(openidOnly);
    const withRead = await listenAbove(await cluster.tokenFor(owner));
    await callTool(B, mine.headers, "update_world", { worldId: x, tone: "watched" });
    const heard = await withRead.reader.until((e) => methodOf(e) === "notifications/resources/updated", 10_000);
    expect(messageOf(heard)?.params).toMatchObject({ uri });
    // Both streams are on A and hear the bus at once: by now the other would have had it too.
    await expect(withoutRead.reader.next(1_000)).rejects.toThrow(/no SSE event/);
  }, 60_000);
});
