import type { ListKind } from "../registry";

/**
 * Changes every connected listener may care about, whichever era its stream speaks. Its own
 * module because both the bus (which carries it between instances) and the hub (which fans it
 * out to streams) name it.
 */
export type ServerEvent =
  | { kind: "list_changed"; list: ListKind }
  | { kind: "resource_updated"; uri: string }
  /** A durable task changed status (SEP-2663 notifications/tasks): its DetailedTask, for its owner's listen streams. */
  | { kind: "task_status"; owner: string; task: Record<string, unknown> };
