import { z } from "zod";
import { ErrorCode, McpError } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import { forbiddenTextIssue, parseOrInvalidParams } from "../runtime/validate";
import type { TaskRecord } from "../tasks/store";
import type { TaskRuntime } from "../tasks/runtime";
import { TASKS_EXTENSION, declaresTasks, detailedTask } from "../tasks/wire";
import type { MethodCall, MethodEnv, MethodHandler } from "./method-env";
import { callerTaskOwner, reachableTask } from "./task-lookup";
import { cutText } from "../../text/cut-text";

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });
const UpdateParams = z.looseObject({
  taskId: z.string().min(1).max(200),
  inputResponses: z.record(z.string().max(200), z.unknown()),
});

/**
 * The tasks surface (SEP-2663) for a request that negotiated it: without the extension in the
 * request's client capabilities every method is -32021 (SEP-2575 §missing required capabilities).
 */
function runtimeFor(env: MethodEnv, call: MethodCall, method: string): TaskRuntime {
  // Named as sent: "tasks" alone named a method no one called (outside probe, 2026-11-29).
  if (!env.tasks) throw McpError.methodNotFound(method);
  if (!declaresTasks(call.scope.clientCapabilities)) {
    throw new ProtocolError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${TASKS_EXTENSION}`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
  return env.tasks;
}

/** A task is its creator's alone: another subject's id answers exactly like a missing one. */
function unknownTask(taskId: string): McpError {
  return McpError.invalidParams(`Unknown task: ${cutText(taskId, 200)}`, { taskId: cutText(taskId, 200) });
}

/** The caller's own task, which it may still reach (task-lookup.ts), or -32602 as for any unknown id. */
async function ownTask(env: MethodEnv, tasks: TaskRuntime, call: MethodCall, taskId: string): Promise<TaskRecord> {
  const task = await reachableTask(env, tasks, call, taskId);
  if (!task) throw unknownTask(taskId);
  return task;
}

/** tasks/get: the DetailedTask, its result or error inlined once it ended (there is no tasks/result). */
export const getTask: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/get");
  const { taskId } = parseOrInvalidParams(TaskParams, call.params);
  return detailedTask(await ownTask(env, tasks, call, taskId));
};

/** tasks/update: answers to a task's inputRequests; an empty ack, the state shows on the next tasks/get. */
export const updateTask: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/update");
  const { taskId, inputResponses } = parseOrInvalidParams(UpdateParams, call.params);
  await ownTask(env, tasks, call, taskId);
  // Answers are stored as they come (jsonb, which refuses a NUL): text never needs control
  // characters or unpaired surrogates.
  const issue = forbiddenTextIssue(inputResponses, ["inputResponses"]);
  if (issue) throw McpError.invalidParams("Invalid params", [issue]);
  if (!(await tasks.answer(taskId, callerTaskOwner(env, call), inputResponses))) throw unknownTask(taskId);
  return {};
};

/** tasks/cancel: an empty ack, for a running task and (idempotently) for an ended one. */
export const cancelTask: MethodHandler = async (env, call) => {
  const tasks = runtimeFor(env, call, "tasks/cancel");
  const { taskId } = parseOrInvalidParams(TaskParams, call.params);
  await ownTask(env, tasks, call, taskId);
  if ((await tasks.cancel(taskId, callerTaskOwner(env, call))) === "unknown") throw unknownTask(taskId);
  return {};
};
