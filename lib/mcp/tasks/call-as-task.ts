import type { CallChannel, CallScope } from "../runtime/handler-context";
import type { ServerRequestMethod } from "../runtime/client-requests";
import { ErrorCode } from "../../jsonrpc";
import { ProtocolError } from "../protocol/protocol-error";
import { RELATED_TASK_META_KEY, createTaskResult, legacyTask } from "./wire";
import type { TaskEnding } from "./store";
import { failedEnding, type TaskRun, type TaskRuntime } from "./runtime";

export interface TaskCall {
  owner: string;
  tool: string;
  args: unknown;
  /** True: the task starts before the handler runs. False: the handler calls ctx.continueAsTask(). */
  atOnce: boolean;
  /** The handler, its outcome mapped to a tools/call result (thrown: a protocol-level failure). */
  run: (scope: CallScope) => Promise<Record<string, unknown>>;
  /** The 2025-11-25 task wire (`{ task }`, no questions to the client) instead of SEP-2663's. */
  legacy?: boolean;
  /** Told how the task ended (the audit log): the ending written, after the write. */
  ended?: (ending: TaskEnding, cancelled: boolean) => void;
}

/**
 * Where a task's notifications go once its request is answered. 2025-11-25: progress stays valid
 * for the task's lifetime (basic/utilities/tasks §progress) and goes to the session's GET stream.
 * SEP-2663 tasks are polled (progress is stored, tasks/get reads it) or heard through
 * subscriptions/listen; other notifications have nowhere to go.
 */
function taskNotify(runtime: TaskRuntime, request: CallScope, run: TaskRun, legacy: boolean): CallChannel["notify"] {
  const sessionId = request.sessionId;
  if (!legacy || sessionId === undefined) return () => Promise.resolve();
  // basic/utilities/tasks §related task metadata: every notification associated with a task MUST
  // name it in `_meta` (outside audit, 2026-11-27: progress went out without it).
  const related = { [RELATED_TASK_META_KEY]: { taskId: run.record.id } };
  return (method, params) => {
    if (method === "notifications/progress") {
      const meta = typeof params._meta === "object" && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
      runtime.notifySession(sessionId, method, { ...params, _meta: { ...meta, ...related } });
    }
    return Promise.resolve();
  };
}

/** The scope a handler keeps when its call turns into a task: signal and channel become the task's. */
function taskScopeOf(runtime: TaskRuntime, request: CallScope, run: TaskRun, legacy: boolean): CallScope {
  const cannotAsk = (method: ServerRequestMethod) =>
    legacy ? new ProtocolError(ErrorCode.InvalidRequest, `A 2025-11-25 task cannot ask the client (${method}): use protocol revision 2026-07-28 for tasks that ask`) : undefined;
  const channel: CallChannel = {
    notify: taskNotify(runtime, request, run, legacy),
    request: (method, params, _signal, key) => {
      const refused = cannotAsk(method);
      return refused ? Promise.reject(refused) : run.ask(method, params, key);
    },
    missingCapability: (required, method) => request.channel.missingCapability(required, method),
    cannotAsk,
    closeStream: () => undefined,
  };
  return {
    requestId: request.requestId,
    signal: run.signal,
    get aborted() {
      return run.signal.aborted;
    },
    onProgress: (progress, total) => run.progress(progress, total, undefined),
    protocolVersion: request.protocolVersion,
    sessionId: request.sessionId,
    auth: request.auth,
    clientAddress: request.clientAddress,
    meta: request.meta,
    clientCapabilities: request.clientCapabilities,
    logThreshold: request.logThreshold,
    channel,
  };
}

/**
 * A scope whose every read goes to the current one: the request's until the call becomes a
 * task, the task's after. The handler's ctx is built once over it and never notices the switch.
 */
function switchableScope(initial: CallScope, continueAsTask: () => Promise<void>): { scope: CallScope; switchTo(next: CallScope): void } {
  let current = initial;
  const scope: CallScope = {
    get requestId() {
      return current.requestId;
    },
    get signal() {
      return current.signal;
    },
    get aborted() {
      return current.aborted;
    },
    get onProgress() {
      return current.onProgress;
    },
    get protocolVersion() {
      return current.protocolVersion;
    },
    get sessionId() {
      return current.sessionId;
    },
    get auth() {
      return current.auth;
    },
    get clientAddress() {
      return current.clientAddress;
    },
    get meta() {
      return current.meta;
    },
    get clientCapabilities() {
      return current.clientCapabilities;
    },
    get logThreshold() {
      return current.logThreshold;
    },
    get channel() {
      return current.channel;
    },
    continueAsTask,
  };
  return { scope, switchTo: (next) => (current = next) };
}

/**
 * tools/call as a task (SEP-2663 §task-augmented tools/call): the request is answered with a
 * CreateTaskResult once the task is durably stored, and the handler's outcome goes to the store.
 * Before the switch (a handler that gathers input first, basic/patterns/mrtr) the call is an
 * ordinary request: its questions are input rounds, its answer a plain result.
 */
export function callAsTask(runtime: TaskRuntime, request: CallScope, call: TaskCall): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let switching: Promise<void> | undefined;
    /** Set once the task runs: where the handler's outcome goes instead of the response. */
    let task: { done(ending: TaskEnding): void; fail(thrown: unknown): void } | undefined;
    const continueAsTask = () =>
      (switching ??= runtime.create(call.owner, call.tool, call.args).then((record) => {
        runtime.run(
          record,
          (run) => {
            switchable.switchTo(taskScopeOf(runtime, request, run, call.legacy === true));
            return new Promise<TaskEnding>((done, fail) => (task = { done, fail })).catch(failedEnding);
          },
          call.ended,
        );
        resolve(call.legacy ? { task: legacyTask(record) } : createTaskResult(record));
      }));
    const switchable = switchableScope(request, continueAsTask);
    // A handler that asked for the switch without awaiting it may finish first: wait for it.
    const afterSwitch = (then: () => void) => (switching ? switching.then(then, then) : then());
    (call.atOnce ? continueAsTask() : Promise.resolve())
      .then(() => call.run(switchable.scope))
      .then(
        (result) => afterSwitch(() => (task ? task.done({ status: "completed", result }) : resolve(result))),
        // Thrown past the tool-error mapping: a protocol-level failure (SEP-2663: status failed).
        (thrown: unknown) => afterSwitch(() => (task ? task.fail(thrown) : reject(thrown))),
      );
  });
}
