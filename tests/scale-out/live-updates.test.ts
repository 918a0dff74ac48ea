/**
 * Live updates across instances (issue 24, item 5): a write through instance B reaches the
 * subscribers on instance A as notifications/resources/updated — a 2025-11-25 session subscribed
 * with resources/subscribe (the official 1.x client, its GET stream on A) and a 2026-07-28
 * subscriptions/listen stream on A. Only the named resources are announced, and never another
 * user's: user 2 subscribes to user 1's world by its URI and hears nothing of it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectClient, messageOf, sleep, type SseEvent } from "../support/sdk-client";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";
import { V2026, callTool, initialize, isRecord, methodOf, openStream, postMessage, uniqueId, type Json, type SessionRef } from "../support/raw-sessions";

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
});
