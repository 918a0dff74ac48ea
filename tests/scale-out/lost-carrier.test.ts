/**
 * The instance holding a session's carrying GET stream stops while an older stream of the session
 * is connected on the other instance (outside review): the older one must carry the session's
 * messages once the stopped instance is gone, however it went.
 *
 * - Before that, GETs abandoned before their headers (on A) must not take the messages either.
 * - SIGTERM: A announces its GET streams as ended (it used to say nothing), so the client's resume
 *   of its stream through B does not re-attach to a stream that dies with A, and B never takes
 *   that stream as connected after A has exited.
 * - SIGKILL: nobody announces anything; B forgets the streams of an instance whose liveness key
 *   (lib/cluster/redis-cluster.ts) lapsed, within MCP_INSTANCE_LIVENESS_MS and a third of it
 *   (shortened here to 3 s), where it waited ~5 min.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, type SseEvent } from "../support/sdk-client";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";
import { callTool, initialize, isRecord, methodOf, openStream, postMessage, request, type OpenStream, type SessionRef } from "../support/raw-sessions";

const newSubject = (name: string) => `carrier-${name}-${randomUUID().slice(0, 8)}`;
const isUpdate = (e: SseEvent) => methodOf(e) === "notifications/resources/updated";

/**
 * A session subscribed to a world, with an older GET stream on B and a newer one on A that
 * carries the updates (written through B by `writer`, which survives A).
 */
async function olderOnBNewerOnA(cluster: TwoInstances, label: string) {
  const A = `${cluster.a.url}/api/mcp`;
  const B = `${cluster.b.url}/api/mcp`;
  const owner = newSubject(label);
  const token = await cluster.tokenFor(owner);
  const writer = await initialize(B, { token });
  expect((await postMessage(B, writer.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  const created = await callTool(B, writer.headers, "create_world", { name: `${label} world` });
  const world = isRecord(created.structuredContent) ? created.structuredContent.world : undefined;
  if (!isRecord(world) || typeof world.id !== "string") throw new Error(`create_world: ${JSON.stringify(created).slice(0, 300)}`);
  const worldId = world.id;
  const session: SessionRef = await initialize(B, { token });
  expect((await postMessage(B, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  await request(B, session.headers, "resources/subscribe", { uri: `world://${worldId}` });
  const older = await openStream(B, { method: "GET", headers: session.headers });
  await sleep(300);
  const newer = await openStream(A, { method: "GET", headers: session.headers });
  let lastId = "";
  let heard = false;
  for (let i = 0; i < 20 && !heard; i++) {
    await callTool(B, writer.headers, "update_world", { worldId, tone: `tone ${i}` });
    const event = await newer.reader.until(isUpdate, 500).catch(() => undefined);
    if (event) [heard, lastId] = [true, event.id ?? ""];
  }
  expect(heard, "the newer stream, on A, carries the updates").toBe(true);
  const update = (tone: string) => callTool(B, writer.headers, "update_world", { worldId, tone });
  return { A, B, session, older, newer, lastId, update };
}

/** Whether one of `streams` hears an update within `ms`. */
async function anyHears(streams: OpenStream[], ms: number): Promise<boolean> {
  const heard = await Promise.all(streams.map((s) => s.reader.until(isUpdate, ms).then(
    () => true,
    () => false,
  )));
  return heard.includes(true);
}

const exited = (cluster: TwoInstances) =>
  new Promise<void>((resolve) => {
    if (cluster.a.child.exitCode !== null || cluster.a.child.signalCode !== null) resolve();
    else cluster.a.child.once("exit", () => resolve());
  });

describe("SIGTERM of the instance holding the carrying GET stream", () => {
  let cluster: TwoInstances;
  beforeAll(async () => {
    cluster = await startTwoInstances({ prefix: "wc_carrier_term" });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it("(first, A still up) GETs abandoned before their headers take neither the messages nor a stream slot", async () => {
    // With a cluster the answer waits for the stream's log entry: a client gone by then left a
    // body nobody read or cancelled, a "connected" newest stream that took the session's messages
    // from the stream really read, and held a stream slot for its lifetime (outside review).
    const { A, session, newer, update } = await olderOnBNewerOnA(cluster, "abandoned");
    for (const delayMs of [0, 0, 0, 0, 2, 5, 10]) {
      const abandon = new AbortController();
      const sent = fetch(A, { headers: { accept: "text/event-stream", ...session.headers }, signal: abandon.signal }).catch(() => undefined);
      if (delayMs > 0) await sleep(delayMs);
      abandon.abort();
      await sent;
    }
    await sleep(500);
    await update("after abandoned GETs");
    expect(await anyHears([newer], 5_000), "the stream really read hears the update").toBe(true);
  }, 60_000);

  it("its client's resume through B does not leave the session's messages with a stream that dies with A", async () => {
    const { B, session, older, lastId, update } = await olderOnBNewerOnA(cluster, "term");
    process.kill(cluster.a.pid, "SIGTERM");
    // A closes its GET stream; the client resumes it through B at once, while A drains.
    await sleep(300);
    const resumed = await openStream(B, { method: "GET", headers: { ...session.headers, "last-event-id": lastId } });
    await Promise.race([exited(cluster), sleep(20_000)]);
    expect(cluster.a.child.exitCode !== null || cluster.a.child.signalCode !== null, "A has exited").toBe(true);
    await sleep(500);
    await update("after A");
    expect(await anyHears([older, resumed], 5_000), "the older stream or the resumed one hears the update").toBe(true);
  }, 90_000);
});

describe("SIGKILL of the instance holding the carrying GET stream", () => {
  const LIVENESS_MS = 3_000;
  let cluster: TwoInstances;
  beforeAll(async () => {
    cluster = await startTwoInstances({ prefix: "wc_carrier_kill", env: { MCP_INSTANCE_LIVENESS_MS: String(LIVENESS_MS) } });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it("the older stream on B carries the updates once A's liveness has lapsed", async () => {
    const { older, update } = await olderOnBNewerOnA(cluster, "kill");
    process.kill(cluster.a.pid, "SIGKILL");
    // Liveness lapses within LIVENESS_MS of its last renewal; B looks three times within that.
    await sleep(LIVENESS_MS * 2);
    await update("after A");
    expect(await anyHears([older], 5_000), "the older stream hears the update").toBe(true);
  }, 90_000);
});
