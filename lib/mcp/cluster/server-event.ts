import type { ListKind } from "../registry";

/**
 * Changes every connected listener may care about, whichever era its stream speaks. Its own
 * module because both the bus (which carries it between instances) and the hub (which fans it
 * out to streams) name it.
 */
export type ServerEvent = { kind: "list_changed"; list: ListKind } | ResourceUpdated | TaskStatusChanged | SessionNotification;

/**
 * A notification for one session's GET stream, wherever that stream is open: the progress of a
 * 2025-11-25 task, whose request was answered long before (basic/utilities/tasks §progress).
 */
export interface SessionNotification {
  kind: "session_notification";
  sessionId: string;
  method: string;
  params: Record<string, unknown>;
}

/** A durable task changed status (SEP-2663 notifications/tasks): its DetailedTask, for its owner's listen streams. */
export interface TaskStatusChanged {
  kind: "task_status";
  /** The task's owner as the task store keys it (tasks/owner.ts). */
  owner: string;
  /** The tool the task runs: a listener must still be allowed it (policy/task-access.ts). */
  tool: string;
  task: Record<string, unknown>;
}

/**
 * A resource changed. `owner` says whose it is: a subject, `null` for a resource of anonymous
 * callers, absent for a resource everyone may read. Only streams of that owner hear of it, so a
 * URI learned somehow never tells one user about another's writes.
 */
export interface ResourceUpdated {
  kind: "resource_updated";
  uri: string;
  owner?: string | null;
}

/** Whether a stream opened by `subject` (undefined: anonymous) may hear of `event`. */
export function mayHear(event: ResourceUpdated, subject: string | undefined): boolean {
  return event.owner === undefined || event.owner === (subject ?? null);
}
