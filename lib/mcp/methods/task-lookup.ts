import { authorizeTaskAccess } from "../policy/task-access";
import { forbiddenTextIssue } from "../runtime/validate";
import { taskOwnerOf } from "../tasks/owner";
import type { TaskRuntime } from "../tasks/runtime";
import type { TaskRecord } from "../tasks/store";
import type { MethodCall, MethodEnv } from "./method-env";

/** Whose tasks a call reaches (tasks/owner.ts): its token's subject, or its anonymous address. */
export const callerTaskOwner = (env: MethodEnv, call: MethodCall): string => taskOwnerOf(call.scope.auth, call.scope.clientAddress, env.info.name);

/**
 * The caller's own task, read for a tasks method of either revision: undefined when there is no
 * such task for it (another's, or an id this server could never have issued: a NUL or another
 * control character), a 403 when its token lacks the task's tool's scopes (policy/task-access.ts).
 */
export async function reachableTask(env: MethodEnv, tasks: TaskRuntime, call: MethodCall, taskId: string): Promise<TaskRecord | undefined> {
  const task = forbiddenTextIssue(taskId) ? undefined : await tasks.get(taskId, callerTaskOwner(env, call));
  // A task of a tool this endpoint does not offer (any more, or switched off) is no task of its.
  if (!task || !env.registry.getTool(task.tool)) return undefined;
  authorizeTaskAccess(env, task.tool, call.scope.auth);
  return task;
}
