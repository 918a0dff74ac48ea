/**
 * Two instances sharing their cluster state through Upstash's REST API (UPSTASH_REDIS_REST_URL
 * and TOKEN, @upstash/redis), as on Vercel: the whole scale-out suite (tests/support/
 * scale-out-suite.ts), then proof that it really went over REST — sessions read and written,
 * stream logs appended in MULTI/EXEC transactions, the bus on a subscription stream — and that
 * no state was left in the keyspace ioredis deployments use.
 *
 * Upstash is reached through tests/support/upstash-rest-front.ts, a stand-in for its REST API in
 * front of the real Redis. The instances use a cluster prefix of their own, so test 7's tool
 * switch cannot disturb two-instances.test.ts running at the same time on the same Redis.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { describeScaleOut } from "../support/scale-out-suite";
import { SHARED_REDIS_URL } from "../support/two-instances";
import { startUpstashRestFront, type UpstashRestFront } from "../support/upstash-rest-front";

const PREFIX = `mcp-upstash-${randomUUID().slice(0, 8)}`;
let front: UpstashRestFront | undefined;

afterAll(async () => {
  await front?.close();
});

describeScaleOut("two instances behind one public URL, state in Upstash over REST", {
  prefix: "wc_scale_up",
  backend: async () => {
    front = await startUpstashRestFront({ redisUrl: SHARED_REDIS_URL, token: `upstash-${randomUUID()}` });
    const upstash = { UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: front.token, MCP_CLUSTER_PREFIX: PREFIX };
    // REDIS_URL empty is unset: only the REST API is there to use.
    return { env: { ...upstash, REDIS_URL: "" }, toolsEnv: { ...upstash, REDIS_URL: "" } };
  },
});

describe("the suite above went through Upstash's REST API", () => {
  it("read and wrote sessions, appended stream logs in transactions, and ran the bus on subscriptions", () => {
    if (!front) throw new Error("the Upstash front never started");
    const keys = front.commands.filter(([, key]) => key?.startsWith(`${PREFIX}:`));
    const named = (name: string) => keys.filter(([command]) => command === name);
    expect(front.unauthorized).toBe(0);
    expect(named("set").some(([, key]) => key?.startsWith(`${PREFIX}:worldcrafter:session:`))).toBe(true);
    expect(named("get").some(([, key]) => key?.startsWith(`${PREFIX}:worldcrafter:session:`))).toBe(true);
    expect(named("publish").length).toBeGreaterThan(0);
    // Stream logs: RPUSH, LTRIM, PEXPIRE in one MULTI/EXEC per event.
    const appends = front.transactions.filter((tx) => tx[0]?.[0]?.toLowerCase() === "rpush" && tx[0]?.[1]?.startsWith(`${PREFIX}:`));
    expect(appends.length).toBeGreaterThan(10);
    expect(appends.every((tx) => tx.map(([c]) => c?.toLowerCase()).slice(0, 3).join(" ") === "rpush ltrim pexpire")).toBe(true);
    // Each instance of each endpoint listened on its bus channel over a subscription stream.
    expect(front.subscriptions.filter((c) => c === `${PREFIX}:worldcrafter:cluster`).length).toBeGreaterThanOrEqual(2);
    expect(front.subscriptions.filter((c) => c === `${PREFIX}:conformance:cluster`).length).toBeGreaterThanOrEqual(2);
    expect(front.deliveries.filter((d) => d.channel.startsWith(`${PREFIX}:`)).length).toBeGreaterThan(0);
    expect(front.multilineMessages).toBe(0);
  });
});
