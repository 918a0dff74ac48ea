import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLO_BUS } from "../../lib/mcp/cluster/cluster";
import { LocalNotificationHub } from "../../lib/mcp/cluster/notification-hub";
import { TaskRuntime, type TaskRun } from "../../lib/mcp/tasks/runtime";
import type { TaskStore } from "../../lib/mcp/tasks/store";
import { taskStoreOnTestSchema } from "../support/test-database";

/**
 * A durable task's progress on the real SQL store (PostgreSQL): whatever the handler reported last
 * is what tasks/get reads once the task has ended. Each progress write may wait on its own pool
 * connection; here the store's progress writes are slowed, the earlier ones most (a busy pool),
 * so a write fired and forgotten lands late: the ending overtook the last report and its
 * `status = 'working'` guard dropped it (tests/e2e/tasks failed so in CI: completed, no progress).
 */
let onSchema: Awaited<ReturnType<typeof taskStoreOnTestSchema>>;
let store: TaskStore;

beforeAll(async () => {
  onSchema = await taskStoreOnTestSchema("wc_task_progress");
  ({ store } = onSchema);
}, 120_000);

afterAll(async () => {
  await onSchema?.close();
});

/** The real store, its progress writes delayed: the first by 120 ms, the next by 60, then none. */
function slowProgressStore(): TaskStore & { progressWrites: number } {
  const delays = [120, 60];
  const slowed = {
    ...store,
    progressWrites: 0,
    async progress(id: string, progress: number, total: number | undefined, message: string | undefined) {
      slowed.progressWrites += 1;
      await new Promise((resolve) => setTimeout(resolve, delays.shift() ?? 0));
      return store.progress(id, progress, total, message);
    },
  };
  return slowed;
}

const settings = { ttlMs: 60_000, pollIntervalMs: 100, leaseMs: 30_000, maxWorkingPerOwner: 10, maxStoredPerOwner: 100, maxResultBytes: 100_000, timeLimitMs: 10_000 };

describe("a durable task's progress", () => {
  it("its last report is stored before the task ends, in the order reported, the newest message kept", async () => {
    const slow = slowProgressStore();
    const runtime = new TaskRuntime({ store: slow, settings }, SOLO_BUS, new LocalNotificationHub());
    const owner = `owner-${Date.now()}`;
    const record = await runtime.create(owner, "slow_compute", {});
    runtime.run(record, async (run: TaskRun) => {
      run.progress(1, 4, "starting");
      run.progress(2, 4, undefined);
      run.progress(4, 4, "almost there");
      run.progress(5, 5, undefined);
      return { status: "completed", result: { content: [{ type: "text", text: "done" }] } };
    });
    const task = await onSchema.ended(record.id, owner);
    expect(task.status).toBe("completed");
    expect({ progress: task.progress, total: task.progressTotal, message: task.statusMessage }).toEqual({ progress: 5, total: 5, message: "almost there" });
    // Reports made while a write was in flight went out as one write: the newest.
    expect(slow.progressWrites).toBe(2);
  });
});
