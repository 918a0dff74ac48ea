import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../lib/mcp/tasks/store";
import { detailedTask, legacyTask } from "../../lib/mcp/tasks/wire";

/**
 * One task, read in both revisions by its owner. Only a task started at 2026-07-28 asks its client
 * questions (a 2025-11-25 task cannot). A 2025-11-25 session reading such a task was told
 * `input_required`, which sends it to tasks/result for a question that never comes there (outside
 * probe, 2026-11-29): to it the task is working, and its message says on what.
 */
const now = new Date("2026-11-29T12:00:00Z");
const waiting: TaskRecord = {
  id: "t-1",
  owner: "worldcrafter/subject:alice",
  tool: "draft_world_outline",
  argsDigest: "d",
  status: "working",
  statusMessage: undefined,
  progress: undefined,
  progressTotal: undefined,
  result: undefined,
  error: undefined,
  inputRequests: { confirm: { method: "elicitation/create", params: { message: "Go on?", requestedSchema: { type: "object", properties: {} } } } },
  inputResponses: {},
  createdAt: now,
  updatedAt: now,
  expiresAt: new Date(now.getTime() + 60_000),
  ttlMs: 60_000,
  pollIntervalMs: 1_000,
  leaseExpiresAt: new Date(now.getTime() + 30_000),
  instance: "i-1",
};

describe("a task waiting for a 2026-07-28 client's answer", () => {
  it("is input_required to 2026-07-28, with the question", () => {
    expect(detailedTask(waiting)).toMatchObject({ status: "input_required", inputRequests: { confirm: { method: "elicitation/create" } } });
  });

  it("is working to a 2025-11-25 reader, saying it waits on the other client", () => {
    expect(legacyTask(waiting)).toMatchObject({ taskId: "t-1", status: "working", statusMessage: expect.stringMatching(/^Waiting for input from the client that started it/) });
  });

  it("once answered, reads working the same in both, without that message", () => {
    const answered = { ...waiting, inputResponses: { confirm: { action: "accept", content: {} } } };
    expect(detailedTask(answered)).toMatchObject({ status: "working" });
    expect(legacyTask(answered)).toEqual(expect.objectContaining({ status: "working" }));
    expect(legacyTask(answered).statusMessage).toBeUndefined();
  });
});
