import type { TaskRecord, TaskInputRequest } from "./store";
import { cutText } from "../../text/cut-text";

/** The extension's identifier (SEP-2663), under `capabilities.extensions` on both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How a tool takes part in tasks (the tool descriptor's `execution.taskSupport`). */
export type TaskSupport = "optional" | "required";

/** What the client reads: `input_required` is a working task with questions still unanswered. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Questions the client has not answered yet (SEP-2663: answered keys leave the map). */
export function pendingInput(task: TaskRecord): Record<string, TaskInputRequest> {
  const pending: Record<string, TaskInputRequest> = {};
  for (const [key, request] of Object.entries(task.inputRequests)) {
    if (!Object.hasOwn(task.inputResponses, key)) pending[key] = request;
  }
  return pending;
}

export function statusOf(task: TaskRecord): TaskStatus {
  if (task.status !== "working") return task.status;
  return Object.keys(pendingInput(task)).length > 0 ? "input_required" : "working";
}

/** The Task fields every shape shares (SEP-2663 §Task): ISO times, integer milliseconds. */
function base(task: TaskRecord, status: TaskStatus): Record<string, unknown> {
  return {
    taskId: task.id,
    status,
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
  };
}

/** tools/call's answer when it made a task: a flat Result & Task, no result, error or requestState. */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: "task", ...base(task, statusOf(task)) };
}

/** tasks/get's DetailedTask: the result or error inlined once terminal, the open questions while they are open. */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const status = statusOf(task);
  return {
    ...base(task, status),
    ...(task.progress !== undefined ? { progress: task.progress, ...(task.progressTotal !== undefined ? { total: task.progressTotal } : {}) } : {}),
    ...(status === "input_required" ? { inputRequests: pendingInput(task) } : {}),
    ...(status === "completed" && task.result ? { result: task.result } : {}),
    ...(status === "failed" && task.error ? { error: task.error } : {}),
  };
}

/** True when a request's client capabilities declare the extension (per request in 2026-07-28). */
export function declaresTasks(clientCapabilities: Record<string, unknown> | undefined): boolean {
  const extensions = clientCapabilities?.extensions;
  if (typeof extensions !== "object" || extensions === null || !Object.hasOwn(extensions, TASKS_EXTENSION)) return false;
  // Declared with its settings object; `null` or `false` declares nothing (as for any capability).
  const settings = (extensions as Record<string, unknown>)[TASKS_EXTENSION];
  return typeof settings === "object" && settings !== null && !Array.isArray(settings);
}

/**
 * The 2025-11-25 revision's experimental tasks (basic/utilities/tasks): the same tasks under the
 * v1 wire — `capabilities.tasks`, a `task` param on tools/call, `{ task }` on creation, `ttl` and
 * `pollInterval`, the result from `tasks/result`. No `tasks/list` (the capability is not declared)
 * and no input during a task (its questions would travel on the tasks/result stream).
 */
export const LEGACY_TASKS_VERSION = "2025-11-25";
export const LEGACY_TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } } as const;
/** 2025-11-25: tasks/result's answer names its task in `_meta` (SEP-2663 dropped it). */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/**
 * A task's status on the 2025-11-25 wire: a tool call whose result has `isError` is `failed`
 * there (basic/utilities/tasks §task status: "for tool calls specifically, this includes cases
 * where the tool call result has isError set to true"), where SEP-2663 keeps it `completed`.
 */
export function legacyStatusOf(task: TaskRecord): TaskStatus {
  if (task.status === "completed" && task.result?.isError === true) return "failed";
  const status = statusOf(task);
  // Only a task started at 2026-07-28 asks (a 2025-11-25 task cannot): its questions go to that
  // client, through tasks/get and tasks/update. A 2025 session reading it (same owner) was told
  // input_required, which tells it to call tasks/result for a question that never comes there
  // (outside probe, 2026-11-29): to it the task is working, and says on what.
  return status === "input_required" ? "working" : status;
}

/** What a 2025-11-25 reader is told of a task waiting for another revision's client to answer. */
const WAITING_ELSEWHERE = "Waiting for input from the client that started it (protocol revision 2026-07-28)";

/** The diagnostic a failed tool call's task carries (§result retrieval: tasks/get SHOULD say why). */
function toolFailureMessage(result: Record<string, unknown> | undefined): string | undefined {
  const content = Array.isArray(result?.content) ? (result.content as unknown[]) : [];
  const text = content.find((c): c is { type: "text"; text: string } => typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string");
  if (!text) return undefined;
  const line = text.text.length > 300 ? `${cutText(text.text, 300)}…` : text.text;
  return `Tool execution failed: ${line}`;
}

export function legacyTask(task: TaskRecord): Record<string, unknown> {
  const status = legacyStatusOf(task);
  const waitingElsewhere = status === "working" && statusOf(task) === "input_required";
  const statusMessage = waitingElsewhere ? WAITING_ELSEWHERE : (task.statusMessage ?? (status === "failed" && task.status === "completed" ? toolFailureMessage(task.result) : undefined));
  return {
    taskId: task.id,
    status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}
