/**
 * The shared stream log keeps a stream's last 1,000 ids (lib/cluster/redis-cluster.ts). A resume
 * from an id before them would replay from the oldest kept and skip the rest without a word
 * (outside probe, 2026-11-29: 50 updates lost, answered 200): the log says such a read is
 * `trimmed`, and another instance refuses that resume as it refuses an unknown id. Real Redis.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { ioredisPort } from "../../lib/cluster/redis-port";
import { redisCluster } from "../../lib/cluster/redis-cluster";
import { RemoteStreams } from "../../lib/mcp/transport/cluster-streams";
import { StreamTable } from "../../lib/mcp/transport/resumable-streams";

const REDIS_URL = `${process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"}/13`;
const NS = `kept:${randomBytes(4).toString("hex")}:`;

afterAll(async () => {
  const direct = new Redis(REDIS_URL);
  const keys = await direct.keys(`${NS}*`);
  if (keys.length > 0) await direct.del(...keys);
  direct.disconnect();
});

describe("a stream log that has dropped its oldest ids", () => {
  it("reads as trimmed from an id before the ones it keeps, and another instance will not resume from there", async () => {
    const { streamLog, bus } = redisCluster(ioredisPort(REDIS_URL, 2_000), NS, 10);
    if (!streamLog) throw new Error("the Redis cluster keeps a stream log");
    await streamLog.open("st-1", "session-1", 60_000, []);
    // 1,005 ids, every tenth a named event's (its id is kept, its data is not replayed).
    for (let seq = 1; seq <= 1_005; seq++) await streamLog.append("st-1", seq % 10 === 0 ? { seq } : { seq, data: `{"n":${seq}}` });

    // Ids 1-5 were trimmed: only a resume from 5 on still has every later event.
    for (const afterSeq of [0, 1, 4]) expect((await streamLog.read("st-1", afterSeq))?.trimmed, String(afterSeq)).toBe(true);
    for (const afterSeq of [5, 6, 1_004, 1_005]) expect((await streamLog.read("st-1", afterSeq))?.trimmed, String(afterSeq)).toBe(false);
    expect((await streamLog.read("st-1", 5))?.events[0]?.seq).toBe(6);

    const remote = new RemoteStreams(streamLog, bus, new StreamTable({ maxEvents: 1_000, retentionMs: 60_000, resumeGraceMs: 60_000 }));
    expect(await remote.resumable("st-1", 4, "session-1")).toBe(false);
    expect(await remote.resumable("st-1", 5, "session-1")).toBe(true);
    expect(await remote.resume("st-1", 0, "session-1", { keepAliveMs: 0 })).toBeUndefined();

    // A stream that never dropped anything is whole from its priming id.
    await streamLog.open("st-2", "session-1", 60_000, []);
    for (let seq = 1; seq <= 3; seq++) await streamLog.append("st-2", { seq, data: "{}" });
    expect((await streamLog.read("st-2", 0))?.trimmed).toBe(false);
  }, 60_000);

  it("a stream on its own instance keeps the same rule (LogicalStream.keepsAfter)", () => {
    const stream = new StreamTable({ maxEvents: 3, retentionMs: 60_000, resumeGraceMs: 60_000 }).open("session-1");
    for (let i = 0; i < 5; i++) stream.write(`{"n":${i}}`);
    // Events 1 and 2 were dropped.
    expect([0, 1, 2, 3, 5].map((seq) => stream.keepsAfter(seq))).toEqual([false, false, true, true, true]);
    stream.finish();
  });
});
