import { z } from "zod";
import { ErrorCode, McpError } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import { parseOrInvalidParams } from "../runtime/validate";
import type { TaskRuntime } from "../tasks/runtime";
import { taskOwnerOf } from "../tasks/owner";
import type { TaskRecord } from "../tasks/store";
import { LEGACY_TASKS_VERSION, RELATED_TASK_META_KEY, legacyTask } from "../tasks/wire";
import type { MethodCall, MethodEnv, MethodHandler } from "./method-env";

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

const ownerOf = (call: MethodCall) => taskOwnerOf(call.scope.auth, call.scope.clientAddress);

async function ownTask(tasks: TaskRuntime, call: MethodCall): Promise<TaskRecord> {
  const { taskId } = parseOrInvalidParams(TaskParams, call.params);
  const task = await tasks.get(taskId, ownerOf(call));
  // Another subject's task answers exactly like a missing one.
  if (!task) throw McpError.invalidParams(`Unknown task: ${taskId}`, { taskId });
  return task;
}

export const getLegacyTask: MethodHandler = async (env, call) => legacyTask(await ownTask(runtimeFor(env, call, "tasks/get"), call));

/** tasks/result: blocks until the task ends, then answers as the original tools/call would have. */
export const legacyTaskResult: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/result");
  let task = await ownTask(tasks, call);
  const deadline = Date.now() + tasks.settings.timeLimitMs + tasks.settings.leaseMs;
  while (task.status === "working") {
    if (call.scope.aborted) throw new McpError(ErrorCode.InternalError, "The request was cancelled");
    if (Date.now() > deadline) throw new McpError(ErrorCode.InternalError, "The task did not end in time; poll tasks/get");
    await new Promise((resolve) => setTimeout(resolve, RESULT_POLL_MS));
    task = await ownTask(tasks, call);
  }
  const related = { [RELATED_TASK_META_KEY]: { taskId: task.id } };
  if (task.status === "completed" && task.result) {
    const meta = typeof task.result._meta === "object" && task.result._meta !== null ? (task.result._meta as Record<string, unknown>) : {};
    return { ...task.result, _meta: { ...meta, ...related } };
  }
  if (task.status === "failed" && task.error) throw new ProtocolError(task.error.code, task.error.message, task.error.data);
  throw new ProtocolError(ErrorCode.InvalidRequest, "The task was cancelled: it has no result", related);
};

/** tasks/cancel: the cancelled task; a task that already ended cannot be cancelled (-32602). */
export const cancelLegacyTask: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/cancel");
  const task = await ownTask(tasks, call);
  if (task.status !== "working") throw McpError.invalidParams(`Cannot cancel a task that is already ${task.status}`, { taskId: task.id });
  await tasks.cancel(task.id, ownerOf(call));
  return legacyTask((await tasks.get(task.id, ownerOf(call))) ?? task);
};
