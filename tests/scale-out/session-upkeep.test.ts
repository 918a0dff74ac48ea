/**
 * An open GET stream looks after its session (lib/mcp/transport/session/session-upkeep.ts): it
 * renews the sliding expiry as requests do, and a session gone from the store without word on the
 * bus ends its stream. An outside audit found a client that only listened lose its session at the
 * TTL while the stream went on for good, holding one of the caller's stream slots, never told.
 * Real Redis (the store shared by instances), one server, a 60 s TTL: the upkeep runs every 15 s.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import type { RunningNextServer } from "../support/next-server.mjs";
import { startOwnServer } from "../support/own-server";
import { initialize, openStream, postMessage } from "../support/raw-sessions";
import { sleep } from "../support/sdk-client";
import { SHARED_REDIS_URL } from "../support/two-instances";

const PREFIX = `upkeep-${randomBytes(4).toString("hex")}`;
const TTL_MS = 60_000;
let server: RunningNextServer;
let redis: Redis;

const sessionKey = (id: string) => `${PREFIX}:worldcrafter:session:${id}`;

beforeAll(async () => {
  redis = new Redis(SHARED_REDIS_URL, { maxRetriesPerRequest: 1 });
  server = await startOwnServer({
    REDIS_URL: SHARED_REDIS_URL,
    UPSTASH_REDIS_REST_URL: "",
    UPSTASH_REDIS_REST_TOKEN: "",
    MCP_CLUSTER_PREFIX: PREFIX,
    MCP_REQUEST_STATE_SECRET: "upkeep-test-request-state-secret-0123456789",
    MCP_SESSION_TTL_SECONDS: String(TTL_MS / 1000),
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

async function sessionWithStream() {
  const url = `${server.url}/api/mcp`;
  const session = await initialize(url);
  expect((await postMessage(url, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  const stream = await openStream(url, { method: "GET", headers: session.headers });
  return { session, stream };
}

describe("an open GET stream and its session", () => {
  it("renews the session's expiry while it is open, with no request coming", async () => {
    const { session } = await sessionWithStream();
    // As if the last request were long ago: 20 s left of 60.
    const record = JSON.parse((await redis.get(sessionKey(session.sessionId))) ?? "null") as { expiresAt: number };
    record.expiresAt = Date.now() + 20_000;
    await redis.set(sessionKey(session.sessionId), JSON.stringify(record), "PX", 20_000);
    await sleep(16_000);
    const renewed = JSON.parse((await redis.get(sessionKey(session.sessionId))) ?? "null") as { expiresAt: number } | null;
    expect(renewed?.expiresAt ?? 0).toBeGreaterThan(Date.now() + TTL_MS / 2);
    expect(await redis.pttl(sessionKey(session.sessionId))).toBeGreaterThan(TTL_MS / 2);
  }, 40_000);

  it("ends when its session is gone from the store without word on the bus", async () => {
    const { session, stream } = await sessionWithStream();
    await redis.del(sessionKey(session.sessionId));
    // The stream ends within one upkeep period (15 s), not at its 280 s lifetime.
    await stream.reader.rest(20_000);
    const after = await fetch(`${server.url}/api/mcp`, { method: "GET", headers: { accept: "text/event-stream", ...session.headers } });
    expect(after.status).toBe(404);
  }, 40_000);
});
