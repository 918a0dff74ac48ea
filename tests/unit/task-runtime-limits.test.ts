import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLO_BUS } from "../../lib/mcp/cluster/cluster";
import { LocalNotificationHub } from "../../lib/mcp/cluster/notification-hub";
import { TIME_LIMIT_GRACE_MS, TaskRuntime, effectiveTtlMs, type TaskSettings } from "../../lib/mcp/tasks/runtime";
import type { TaskEnding, TaskStore } from "../../lib/mcp/tasks/store";
import { ToolTimeout } from "../../lib/mcp/runtime/tool-timeout";
import { taskStoreOnTestSchema } from "../support/test-database";

/**
 * The task runtime over the real SQL store (PostgreSQL, a pool of several connections, as an
 * instance has): its per-owner limits hold under concurrent creations, a dead instance's tasks
 * stop counting as running once their lease is gone, a cancel never claims a task that ended on
 * its own first, and the tool time limit ends a task even when its handler ignores the signal.
 */
let onSchema: Awaited<ReturnType<typeof taskStoreOnTestSchema>>;
let pool: pg.Pool;
let store: TaskStore;

beforeAll(async () => {
  onSchema = await taskStoreOnTestSchema("wc_task_limits");
  ({ pool, store } = onSchema);
}, 120_000);

afterAll(async () => {
  await onSchema?.close();
});

const base: TaskSettings = { ttlMs: 60_000, pollIntervalMs: 100, leaseMs: 30_000, maxWorkingPerOwner: 3, maxStoredPerOwner: 100, maxResultBytes: 100_000, timeLimitMs: 10_000 };
const runtimeWith = (settings: Partial<TaskSettings> = {}) => new TaskRuntime({ store, settings: { ...base, ...settings } }, SOLO_BUS, new LocalNotificationHub());
const owner = () => `subject:limits-${randomUUID()}`;

describe("task limits under concurrency", () => {
  it("40 creations at once for one owner keep at most its running limit, the rest refused with the documented error", async () => {
    const runtime = runtimeWith();
    const who = owner();
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => runtime.create(who, "slow_compute", {})));
    const created = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    // They take turns (the owner's lock): exactly the limit gets through, not fewer, not more.
    expect(created.length).toBe(3);
    for (const r of refused) expect(r.reason).toMatchObject({ code: -32000, data: { taskLimit: "working", limit: 3 } });
    // What is stored is exactly what was acknowledged.
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "McpTask" WHERE "owner" = $1`, [who]);
    expect(rows[0]!.n).toBe(created.length);
  });

  it("the stored limit holds the same way", async () => {
    const runtime = runtimeWith({ maxWorkingPerOwner: 100, maxStoredPerOwner: 5 });
    const who = owner();
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => runtime.create(who, "slow_compute", {})));
    expect(outcomes.filter((o) => o.status === "fulfilled").length).toBe(5);
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "McpTask" WHERE "owner" = $1`, [who]);
    expect(rows[0]!.n).toBe(5);
  });

  it("a working task whose lease ran out (its instance died) no longer counts as running", async () => {
    const who = owner();
    // Three tasks of an instance that died: their lease is long gone, nobody has read them since.
    const dead = runtimeWith({ leaseMs: 300 });
    for (let i = 0; i < 3; i++) await dead.create(who, "slow_compute", {});
    await expect(runtimeWith({ leaseMs: 300 }).create(who, "slow_compute", {})).rejects.toMatchObject({ data: { taskLimit: "working" } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const fresh = await runtimeWith().create(who, "slow_compute", {});
    expect(fresh.status).toBe("working");
  });
});

describe("cancel against the run's own ending", () => {
  it("reports 'ended' only when it cancelled the task; a task that completed first reads completed", async () => {
    const runtime = runtimeWith();
    const who = owner();
    const record = await runtime.create(who, "quick", {});
    let finish!: (ending: TaskEnding) => void;
    runtime.run(record, () => new Promise<TaskEnding>((resolve) => (finish = resolve)));
    finish({ status: "completed", result: { content: [] } });
    await onSchema.ended(record.id, who);
    expect(await runtime.cancel(record.id, who)).toBe("completed");
    expect(await runtime.cancel(randomUUID(), who)).toBe("unknown");

    const running = await runtime.create(who, "slow", {});
    runtime.run(running, (run) => new Promise<TaskEnding>((_, reject) => run.signal.addEventListener("abort", () => reject(run.signal.reason))));
    expect(await runtime.cancel(running.id, who)).toBe("ended");
    expect((await onSchema.ended(running.id, who)).status).toBe("cancelled");
    expect(await runtime.cancel(running.id, who)).toBe("cancelled");
  });
});

describe("the tool time limit on a task", () => {
  it("fires the handler's signal with a ToolTimeout, and ends the task after a grace period if the handler ignores it", async () => {
    const runtime = runtimeWith({ timeLimitMs: 200 });
    const who = owner();
    const heeded = await runtime.create(who, "heeds", {});
    let reason: unknown;
    runtime.run(heeded, (run) =>
      new Promise<TaskEnding>((resolve) =>
        run.signal.addEventListener("abort", () => {
          reason = run.signal.reason;
          resolve({ status: "completed", result: { content: [{ type: "text", text: "stopped" }], isError: true } });
        }),
      ),
    );
    expect((await onSchema.ended(heeded.id, who)).status).toBe("completed");
    expect(reason).toBeInstanceOf(ToolTimeout);

    const deaf = await runtime.create(who, "ignores", {});
    const started = Date.now();
    runtime.run(deaf, () => new Promise<TaskEnding>(() => undefined));
    const task = await onSchema.ended(deaf.id, who);
    expect(Date.now() - started).toBeLessThan(200 + TIME_LIMIT_GRACE_MS + 2_000);
    expect(task.status).toBe("failed");
    expect(task.error?.message).toMatch(/did not finish within 200 ms/);
  });

  it("a task's ttl is never shorter than its longest possible run plus a minute to read it", () => {
    expect(effectiveTtlMs({ ...base, ttlMs: 1_000, timeLimitMs: 280_000, leaseMs: 30_000 })).toBe(280_000 + TIME_LIMIT_GRACE_MS + 30_000 + 60_000);
    expect(effectiveTtlMs({ ...base, ttlMs: 3_600_000 })).toBe(3_600_000);
  });
});

describe("questions a task asks", () => {
  it("a key asked twice fails the second question instead of answering it with the first one's answer", async () => {
    const runtime = runtimeWith();
    const who = owner();
    const record = await runtime.create(who, "asks", {});
    let second: unknown;
    runtime.run(record, async (run) => {
      const first = run.ask("elicitation/create", { message: "Name?", requestedSchema: { type: "object", properties: {} } }, "name");
      // Answer once the question is stored (an answer to a key not asked yet is ignored).
      while (!(await store.get(record.id, who, new Date()))?.inputRequests.name) await new Promise((r) => setTimeout(r, 20));
      expect(await runtime.answer(record.id, who, { name: { action: "accept", content: {} } })).toBe(true);
      await first;
      second = await run.ask("elicitation/create", { message: "Name again?", requestedSchema: { type: "object", properties: {} } }, "name").catch((error: unknown) => error);
      return { status: "completed", result: { content: [] } };
    });
    await onSchema.ended(record.id, who);
    expect(second).toMatchObject({ message: expect.stringMatching(/asked twice under the input key "name"/) });
  });
});

// Outside probe (2026-11-29): an outcome quoting the caller's argument key "a\u0000b" could not be
// stored (jsonb), so the task stayed working until its lease read it as a dead instance's; a result
// over the size bound was audited as "ok"; and every tasks/result waiter polled the store itself.
describe("how a task's ending is written, and heard", () => {
  it("an outcome holding a NUL or an unpaired surrogate is stored, those characters as U+FFFD", async () => {
    const runtime = runtimeWith();
    const who = owner();
    const completed = await runtime.create(who, "odd", {});
    runtime.run(completed, async () => ({ status: "completed", result: { content: [{ type: "text", text: "a\u0000b \ud800c" }], structuredContent: { "k\u0000": "\udc00" } } }));
    const failed = await runtime.create(who, "odd", {});
    runtime.run(failed, async () => ({ status: "failed", error: { code: -32602, message: "bad key a\u0000b", data: [{ path: ["a\ud800"] }] } }));
    const [done, refused] = await Promise.all([onSchema.ended(completed.id, who), onSchema.ended(failed.id, who)]);
    expect(done.status).toBe("completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "a\ufffdb \ufffdc" }], structuredContent: { "k\ufffd": "\ufffd" } });
    expect(refused.status).toBe("failed");
    expect(refused.error).toEqual({ code: -32602, message: "bad key a\ufffdb", data: [{ path: ["a\ufffd"] }] });
    expect(refused.statusMessage).toBe("bad key a\ufffdb");
  });

  it("an ending the store refuses fails the task at once, saying so, and that is the ending heard", async () => {
    let refusals = 0;
    const refusing: TaskStore = {
      ...store,
      end: (id, ending, condition) => (ending.status === "completed" && refusals++ === 0 ? Promise.reject(new Error("22P05")) : store.end(id, ending, condition)),
    };
    const runtime = new TaskRuntime({ store: refusing, settings: base }, SOLO_BUS, new LocalNotificationHub());
    const who = owner();
    const record = await runtime.create(who, "odd", {});
    const heard: TaskEnding[] = [];
    runtime.run(record, async () => ({ status: "completed", result: { content: [] } }), (ending) => heard.push(ending));
    const task = await onSchema.ended(record.id, who);
    expect(task.status).toBe("failed");
    expect(task.error?.message).toMatch(/its outcome could not be stored/);
    expect(heard).toEqual([{ status: "failed", error: task.error }]);
  });

  it("a result over the size bound is heard as the failure it was stored as, not as its handler's success", async () => {
    const runtime = runtimeWith({ maxResultBytes: 100 });
    const who = owner();
    const record = await runtime.create(who, "big", {});
    const heard: { ending: TaskEnding; cancelled: boolean }[] = [];
    runtime.run(record, async () => ({ status: "completed", result: { content: [{ type: "text", text: "x".repeat(500) }] } }), (ending, cancelled) => heard.push({ ending, cancelled }));
    const task = await onSchema.ended(record.id, who);
    expect(task.status).toBe("failed");
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([{ ending: { status: "failed", error: task.error }, cancelled: false }]);
  });

  it("requests waiting for one task's end share one store read per poll on an instance", async () => {
    let reads = 0;
    const counting: TaskStore = { ...store, get: (...args) => (reads++, store.get(...args)) };
    const runtime = new TaskRuntime({ store: counting, settings: base }, SOLO_BUS, new LocalNotificationHub());
    const who = owner();
    const record = await runtime.create(who, "slow", {});
    let finish!: () => void;
    runtime.run(record, () => new Promise<TaskEnding>((resolve) => (finish = () => resolve({ status: "completed", result: { content: [] } }))));
    const deadline = Date.now() + 10_000;
    const waiters = Array.from({ length: 200 }, () => runtime.whenEnded(record.id, who, 50, deadline));
    await new Promise((r) => setTimeout(r, 500));
    const whileWaiting = reads;
    finish();
    await Promise.all(waiters);
    // About ten polls in half a second, not two thousand.
    expect(whileWaiting).toBeLessThan(30);
    expect((await store.get(record.id, who, new Date()))?.status).toBe("completed");
  });
});
