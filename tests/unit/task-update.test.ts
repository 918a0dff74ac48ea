import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/prisma";
import { SOLO_BUS } from "../../lib/mcp/cluster/cluster";
import { LocalNotificationHub } from "../../lib/mcp/cluster/notification-hub";
import { TaskRuntime, type TaskSettings } from "../../lib/mcp/tasks/runtime";
import type { TaskStore } from "../../lib/mcp/tasks/store";
import { sqlTaskStore } from "../../lib/tasks/sql-task-store";
import { migrateDatabase, taskStoreOnTestSchema } from "../support/test-database";

/**
 * tasks/update on the real SQL store, on both databases it runs on (PostgreSQL, a pool of several
 * connections as an instance has; embedded PGlite): an answer to a key the task never asked, or
 * has an answer to already, is ignored (SEP-2663 §Task Update Requests) — the task is left as it
 * was, `updatedAt` (the wire's lastUpdatedAt) included, and no notifications/tasks goes out for it.
 * Outside review (2026-07-28 tasks): an ignored answer moved lastUpdatedAt and was announced.
 */
const DATABASES: { database: string; open(): Promise<{ store: TaskStore; close(): Promise<void> }> }[] = [
  { database: "PostgreSQL", open: () => taskStoreOnTestSchema("wc_task_update") },
  {
    database: "PGlite",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "wc-task-update-"));
      await migrateDatabase({ PGLITE_DATA_DIR: dir });
      const db = openDatabase({ DATABASE_URL: undefined, PGLITE_DATA_DIR: dir });
      return {
        store: sqlTaskStore(db.sql, db.transaction),
        async close() {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

const settings: TaskSettings = { ttlMs: 60_000, pollIntervalMs: 100, leaseMs: 30_000, maxWorkingPerOwner: 10, maxStoredPerOwner: 100, maxResultBytes: 100_000, timeLimitMs: 10_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONFIRM = { message: "Delete it?", requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } } };
const YES = { action: "accept", content: { confirm: true } };
/** Long enough for an announcement (a store read, then the hub) to have gone out. */
const ANNOUNCE_MS = 300;

describe.each(DATABASES)("tasks/update on $database", ({ open }) => {
  let opened: Awaited<ReturnType<(typeof DATABASES)[number]["open"]>>;
  let store: TaskStore;

  beforeAll(async () => {
    opened = await open();
    store = opened.store;
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
  });

  /** A runtime whose announcements (the task statuses its listen streams would hear) are recorded. */
  function listenedRuntime(): { runtime: TaskRuntime; heard: string[] } {
    const hub = new LocalNotificationHub();
    const heard: string[] = [];
    hub.subscribe((event) => {
      if (event.kind === "task_status") heard.push(String(event.task.status));
    });
    return { runtime: new TaskRuntime({ store, settings }, SOLO_BUS, hub), heard };
  }

  async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error("timed out");
      await sleep(20);
    }
  }

  it("an answer to a key never asked, or already answered, leaves the task untouched and announces nothing", async () => {
    const { runtime, heard } = listenedRuntime();
    const who = `subject:update-${randomUUID()}`;
    const record = await runtime.create(who, "confirm_delete", {});
    runtime.run(record, async (run) => {
      const answer = await run.ask("elicitation/create", CONFIRM, "confirm");
      return { status: "completed", result: { content: [{ type: "text", text: JSON.stringify(answer) }] } };
    });
    await until(async () => (heard.includes("input_required") ? true : undefined));
    const asking = await store.get(record.id, who, new Date());
    expect(Object.keys(asking!.inputRequests)).toEqual(["confirm"]);

    // A key the task never asked: ignored, the stored task exactly as it was.
    await sleep(20);
    expect(await runtime.answer(record.id, who, { nope: YES })).toBe(true);
    expect(await runtime.answer(record.id, who, {})).toBe(true);
    expect(await store.get(record.id, who, new Date())).toEqual(asking);
    expect(await store.answer(record.id, who, { nope: YES }, new Date())).toBe("ignored");
    await sleep(ANNOUNCE_MS);
    expect(heard).toEqual(["input_required"]);

    // The one it asked: accepted, and the task runs to its end.
    expect(await runtime.answer(record.id, who, { confirm: YES, nope: YES })).toBe(true);
    const ended = await until(async () => {
      const task = await store.get(record.id, who, new Date());
      return task?.status === "completed" && heard.includes("completed") ? task : undefined;
    });
    expect(ended.inputResponses).toEqual({ confirm: YES });

    // Answered already, and the task has ended: ignored, no second `completed`.
    await sleep(20);
    expect(await runtime.answer(record.id, who, { confirm: { action: "decline" } })).toBe(true);
    expect(await store.get(record.id, who, new Date())).toEqual(ended);
    expect(await store.answer(record.id, who, { confirm: YES }, new Date())).toBe("ignored");
    await sleep(ANNOUNCE_MS);
    expect(heard.filter((status) => status === "completed")).toEqual(["completed"]);
    expect(heard.filter((status) => status === "input_required")).toEqual(["input_required"]);

    // Nobody's task (or another owner's): unknown, as before.
    expect(await store.answer(randomUUID(), who, { confirm: YES }, new Date())).toBe("unknown");
    expect(await store.answer(record.id, `subject:someone-else-${randomUUID()}`, { confirm: YES }, new Date())).toBe("unknown");
    expect(await runtime.answer(randomUUID(), who, { confirm: YES })).toBe(false);
  });

  it("of concurrent answers to one key exactly one is accepted, and it is the answer kept", async () => {
    const { runtime } = listenedRuntime();
    const who = `subject:update-${randomUUID()}`;
    const record = await runtime.create(who, "confirm_delete", {});
    await store.ask(record.id, { confirm: { method: "elicitation/create", params: CONFIRM } });
    const answers = Array.from({ length: 12 }, (_, i) => ({ action: "accept", content: { confirm: true, n: i } }));
    const outcomes = await Promise.all(answers.map((answer) => store.answer(record.id, who, { confirm: answer }, new Date())));
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "ignored")).toHaveLength(answers.length - 1);
    const task = await store.get(record.id, who, new Date());
    expect(task!.inputResponses).toEqual({ confirm: answers[outcomes.indexOf("accepted")] });
    await runtime.cancel(record.id, who);
  });
});
