/**
 * Where durable tasks live (io.modelcontextprotocol/tasks, docs/tasks.md): shared by every
 * instance, so any of them answers tasks/get, tasks/update and tasks/cancel for a task another
 * one runs. The core declares it; lib/tasks implements it over the database.
 */

/** Stored states. `input_required` is not stored: a working task with unanswered questions reads so. */
export type StoredTaskStatus = "working" | "completed" | "failed" | "cancelled";

/** One question a task asks its client (a bare {method, params}, as in InputRequiredResult). */
export interface TaskInputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

export interface TaskRecord {
  id: string;
  /** Whose it is, on which endpoint (owner.ts: `<server name>/subject:<sub>` or `…/anonymous:<address>`): nobody else sees the task. */
  owner: string;
  tool: string;
  argsDigest: string;
  status: StoredTaskStatus;
  statusMessage: string | undefined;
  progress: number | undefined;
  progressTotal: number | undefined;
  result: Record<string, unknown> | undefined;
  error: TaskError | undefined;
  inputRequests: Record<string, TaskInputRequest>;
  inputResponses: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  ttlMs: number;
  pollIntervalMs: number;
  /** The running instance renews this (its heartbeat); past it, nobody runs the task any more. */
  leaseExpiresAt: Date;
  instance: string;
}

/** A task to store; `createdAt` is its creation and first update time alike. */
export type NewTask = Omit<TaskRecord, "updatedAt" | "status" | "statusMessage" | "progress" | "progressTotal" | "result" | "error" | "inputRequests" | "inputResponses">;

/** How a task ended: the one terminal write it gets. */
export type TaskEnding =
  | { status: "completed"; result: Record<string, unknown> }
  | { status: "failed"; error: TaskError }
  | { status: "cancelled"; statusMessage: string };

/** What a tasks/update did to the task (TaskStore.answer). */
export type TaskAnswerOutcome = "accepted" | "ignored" | "unknown";

/** How many tasks one owner may have: running (a live lease), and unexpired in all. */
export interface TaskLimits {
  maxWorking: number;
  maxStored: number;
}

export interface TaskStore {
  /**
   * Store the task unless its owner would then hold more than `limits` allows: the limits hold
   * under concurrent creations on any number of instances (never one task over), and a working
   * task whose lease ran out (its instance died) no longer counts as running. Durable before it
   * resolves: a tasks/get right after must find it (SEP-2663 §strong consistency). Resolves with
   * the stored row, so the creation answer shows exactly what tasks/get will, or with the limit
   * that refused it.
   */
  create(task: NewTask, limits: TaskLimits): Promise<TaskRecord | { refused: "working" | "stored" }>;
  /** The owner's task, or undefined (missing, expired, or someone else's: indistinguishable). */
  get(id: string, owner: string, now: Date): Promise<TaskRecord | undefined>;
  /** Heartbeat: renew the lease of a working task; false when it is no longer working. */
  renew(id: string, leaseExpiresAt: Date, instance: string): Promise<boolean>;
  /** Progress of a working task. */
  progress(id: string, progress: number, total: number | undefined, message: string | undefined): Promise<void>;
  /** Add questions to a working task. */
  ask(id: string, requests: Record<string, TaskInputRequest>): Promise<void>;
  /** The answers delivered so far (the runner polls while it waits), or undefined when the task is gone. */
  answers(id: string): Promise<{ status: StoredTaskStatus; inputResponses: Record<string, unknown> } | undefined>;
  /**
   * tasks/update: merge into the owner's working task the answers to questions it asked and has
   * no answer to yet; any other answer is ignored (SEP-2663 §Task Update Requests). `accepted`
   * when at least one was taken (the task's `updatedAt` moves), `ignored` when none was (the task
   * is left exactly as it was), `unknown` when the owner has no such task.
   */
  answer(id: string, owner: string, responses: Record<string, unknown>, now: Date): Promise<TaskAnswerOutcome>;
  /**
   * The one terminal write: only a working task ends (a second ending changes nothing and
   * returns false). `owner` restricts it to the owner's task (tasks/cancel); `leaseBefore` to a
   * task whose lease ran out (the sweep of dead runs).
   */
  end(id: string, ending: TaskEnding, condition: { owner?: string; leaseBefore?: Date }): Promise<boolean>;
  /**
   * A cancelled task's run has stopped (its handler settled after the signal fired): its status
   * message says so, for clients that want to know the work really ended (cancel is cooperative).
   */
  runStopped(id: string, statusMessage: string): Promise<void>;
  /** Delete expired tasks; returns how many went. */
  sweep(now: Date): Promise<number>;
}
