/**
 * A session with two GET streams open: the newest connected one carries its messages, and when it
 * goes away while an older one is still connected, the older one carries them from then on
 * (basic/transports §multiple connections: "The client MAY remain connected to multiple SSE
 * streams simultaneously. The server MUST send each of its JSON-RPC messages on only one of the
 * connected streams"). An outside review found the older stream silent for good once a newer one
 * had opened: with the newer closed, updates went to its resume log, and past the resume grace
 * (1 s on the test server) nowhere at all, while the older stream was connected throughout.
 */
import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { callTool, initialize, isRecord, methodOf, openStream, postMessage, request, type OpenStream, type SessionRef } from "../support/raw-sessions";
import { messageOf, sleep, type SseEvent } from "../support/sdk-client";

const url = () => `${inject("statefulUrl")}/api/mcp`;
const isUpdate = (e: SseEvent) => methodOf(e) === "notifications/resources/updated";
/** Long enough for the server to notice a closed connection. */
const NOTICED_MS = 300;
/** Past the test server's MCP_RESUME_GRACE_MS (1 s): a detached stream is given up by then. */
const PAST_GRACE_MS = 1_800;

/** A session subscribed to a world of its own, so that only its streams hear of that world. */
async function subscribedSession(): Promise<{ session: SessionRef; worldId: string; update: (tone: string) => Promise<void> }> {
  const session = await initialize(url(), { token: await tokenFor(inject("statefulUrl"), newSubject("older-get")) });
  expect((await postMessage(url(), session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  const created = await callTool(url(), session.headers, "create_world", { name: "Watched Twice" });
  const world = isRecord(created.structuredContent) ? created.structuredContent.world : undefined;
  if (!isRecord(world) || typeof world.id !== "string") throw new Error(`create_world: ${JSON.stringify(created).slice(0, 300)}`);
  const worldId = world.id;
  await request(url(), session.headers, "resources/subscribe", { uri: `world://${worldId}` });
  const update = async (tone: string) => {
    const result = await callTool(url(), session.headers, "update_world", { worldId, tone });
    expect(result.isError).toBeUndefined();
  };
  return { session, worldId, update };
}

/** A new GET stream and the id of its priming event (2025-11-25). */
async function getStream(session: SessionRef): Promise<{ stream: OpenStream; primed: string }> {
  const stream = await openStream(url(), { method: "GET", headers: session.headers });
  const first = await stream.reader.next(5_000);
  expect(first?.data).toBe("");
  return { stream, primed: first?.id ?? "" };
}

/** GET with Last-Event-ID: the stream resumed from there (what it kept after the id comes first). */
function resume(session: SessionRef, lastEventId: string): Promise<OpenStream> {
  return openStream(url(), { method: "GET", headers: { ...session.headers, "last-event-id": lastEventId } });
}

/** The updates a stream shows within `ms` (it stays open). */
async function updatesWithin(stream: OpenStream, ms: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return events;
    const event = await stream.reader.next(left).catch(() => undefined);
    if (!event) return events;
    if (isUpdate(event)) events.push(event);
  }
}

describe("an older GET stream of the session, still connected", () => {
  it("is silent while a newer one is connected: each message on one stream only", async () => {
    const { session, update } = await subscribedSession();
    const older = await getStream(session);
    await sleep(NOTICED_MS);
    const newer = await getStream(session);
    await update("both open");
    await newer.stream.reader.until(isUpdate, 5_000);
    expect(await updatesWithin(older.stream, 1_000)).toEqual([]);
  });

  it("carries the session's messages as soon as the newer one disconnects, not its resume log", async () => {
    const { session, worldId, update } = await subscribedSession();
    const older = await getStream(session);
    await sleep(NOTICED_MS);
    const newer = await getStream(session);
    await newer.stream.close();
    await sleep(NOTICED_MS);
    await update("newer gone");
    const heard = await older.stream.reader.until(isUpdate, 5_000);
    expect(messageOf(heard)?.params).toEqual({ uri: `world://${worldId}` });
    // The newer stream's resume does not replay it a second time.
    const resumed = await resume(session, newer.primed);
    expect(await updatesWithin(resumed, 1_000)).toEqual([]);
  });

  it("still carries them once the newer one's resume grace has passed", async () => {
    const { session, update } = await subscribedSession();
    const older = await getStream(session);
    await sleep(NOTICED_MS);
    const newer = await getStream(session);
    await newer.stream.close();
    await sleep(PAST_GRACE_MS);
    await update("long after");
    await older.stream.reader.until(isUpdate, 5_000);
    // The newer stream, resumed late, replays nothing and carries the session's messages again.
    const resumed = await resume(session, newer.primed);
    await update("resumed");
    await resumed.reader.until(isUpdate, 5_000);
    expect(await updatesWithin(older.stream, 1_000)).toEqual([]);
  });

  it("with no stream connected, the newest keeps the message for its resume, and only it", async () => {
    const { session, update } = await subscribedSession();
    const older = await getStream(session);
    await sleep(NOTICED_MS);
    const newer = await getStream(session);
    await older.stream.close();
    await newer.stream.close();
    await sleep(NOTICED_MS);
    await update("nobody listening");
    const newerAgain = await resume(session, newer.primed);
    await newerAgain.reader.until(isUpdate, 5_000);
    const olderAgain = await resume(session, older.primed);
    expect(await updatesWithin(olderAgain, 1_000)).toEqual([]);
  });
});
