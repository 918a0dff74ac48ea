import { z } from "zod";
import { ErrorCode, McpError } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import { parseOrInvalidParams } from "../runtime/validate";
import { TIME_LIMIT_GRACE_MS, type TaskRuntime } from "../tasks/runtime";
import type { TaskRecord } from "../tasks/store";
import { LEGACY_TASKS_VERSION, RELATED_TASK_META_KEY, legacyStatusOf, legacyTask } from "../tasks/wire";
import type { MethodCall, MethodEnv, MethodHandler } from "./method-env";
import { callerTaskOwner, reachableTask } from "./task-lookup";

/**
 * The 2025-11-25 revision's experimental tasks methods (basic/utilities/tasks) over the same
 * store as SEP-2663's: tasks/get, tasks/result (waits for the end), tasks/cancel. tasks/list is
 * not offered (`capabilities.tasks.list` is not declared), nor on the other 2025 revisions.
 */
const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });

/** How often tasks/result looks at the store while it waits. */
const RESULT_POLL_MS = 200;

function runtimeFor(env: MethodEnv, call: MethodCall, method: string): TaskRuntime {
  if (!env.tasks || call.scope.protocolVersion !== LEGACY_TASKS_VERSION) throw McpError.methodNotFound(method);
  return env.tasks;
}

/** The caller's own task, which it may still reach (task-lookup.ts); another's answers like a missing one. */
async function ownTask(env: MethodEnv, tasks: TaskRuntime, call: MethodCall): Promise<TaskRecord> {
  const { taskId } = parseOrInvalidParams(TaskParams, call.params);
  const task = await reachableTask(env, tasks, call, taskId);
  if (!task) throw McpError.invalidParams(`Unknown task: ${taskId}`, { taskId });
  return task;
}

export const getLegacyTask: MethodHandler = async (env, call) => legacyTask(await ownTask(env, runtimeFor(env, call, "tasks/get"), call));

/** tasks/result: blocks until the task ends, then answers as the original tools/call would have. */
export const legacyTaskResult: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/result");
  let task = await ownTask(env, tasks, call);
  // A run ends within its time limit and grace (runtime.ts), a dead instance's within its lease:
  // past both, something is wrong with the store, not the task.
  const deadline = Date.now() + tasks.settings.timeLimitMs + TIME_LIMIT_GRACE_MS + tasks.settings.leaseMs + RESULT_POLL_MS * 5;
  while (task.status === "working") {
    if (call.scope.aborted) throw new McpError(ErrorCode.InternalError, "The request was cancelled");
    if (Date.now() > deadline) throw new McpError(ErrorCode.InternalError, "The task did not end in time; poll tasks/get");
    // Waiters on one task share one poll (runtime.ts whenEnded); each reads its task again after it,
    // through the same checks as the first read.
    await untilAborted(tasks.whenEnded(task.id, callerTaskOwner(env, call), RESULT_POLL_MS, deadline), call.scope.signal);
    task = await ownTask(env, tasks, call);
  }
  const related = { [RELATED_TASK_META_KEY]: { taskId: task.id } };
  if (task.status === "completed" && task.result) {
    const meta = typeof task.result._meta === "object" && task.result._meta !== null ? (task.result._meta as Record<string, unknown>) : {};
    return { ...task.result, _meta: { ...meta, ...related } };
  }
  // An error has no _meta: the related task travels in its data, as for a cancelled task below.
  if (task.status === "failed" && task.error) {
    throw new ProtocolError(task.error.code, task.error.message, withRelatedTask(task.error.data, related));
  }
  throw new ProtocolError(ErrorCode.InvalidRequest, "The task was cancelled: it has no result", related);
};

/** `wait`, or less when `signal` fires first. */
function untilAborted(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    wait.then(done, done);
  });
}

/**
 * A failed task's error data with its related task merged in. Data that is not an object (a
 * string, an array) is the tool's own and stays as it is: there is nowhere to put the key.
 */
function withRelatedTask(data: unknown, related: Record<string, unknown>): unknown {
  if (data === undefined) return related;
  return typeof data === "object" && data !== null && !Array.isArray(data) ? { ...data, ...related } : data;
}

/**
 * tasks/cancel: the cancelled task. A task that already ended cannot be cancelled (-32602), and
 * neither can one whose run ended while the cancel was on its way: the answer must be a task
 * this call moved to `cancelled` (basic/utilities/tasks §cancelling tasks).
 */
export const cancelLegacyTask: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/cancel");
  const task = await ownTask(env, tasks, call);
  const outcome = task.status === "working" ? await tasks.cancel(task.id, callerTaskOwner(env, call)) : "already ended";
  if (outcome === "unknown") throw McpError.invalidParams(`Unknown task: ${task.id}`, { taskId: task.id });
  const now = (await tasks.get(task.id, callerTaskOwner(env, call))) ?? task;
  if (outcome !== "ended") throw McpError.invalidParams(`Cannot cancel a task that is already ${legacyStatusOf(now)}`, { taskId: task.id });
  return legacyTask(now);
};
