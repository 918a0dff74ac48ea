import { createHash, randomUUID } from "node:crypto";
import { ErrorCode, McpError, toMcpError } from "../../jsonrpc";
import { INSTANCE_ID, type ClusterBus } from "../cluster/cluster";
import { logUnexpected } from "../runtime/request-log";
import type { ServerRequestMethod } from "../runtime/client-requests";
import type { NotificationHub } from "../cluster/notification-hub";
import type { StoredTaskStatus, TaskEnding, TaskError, TaskInputRequest, TaskRecord, TaskStore } from "./store";
import { detailedTask } from "./wire";
import { ProgressWriter } from "./progress-writer";
import { ToolTimeout } from "../runtime/tool-timeout";
import { REQUIRED_CLIENT_CAPABILITY } from "../protocol/client-capabilities";
import { ProtocolError } from "../protocol/protocol-error";

/** Tunables (env: docs/configuration.md). */
export interface TaskSettings {
  /** How long a task stays readable after it was created. */
  ttlMs: number;
  /** What clients are told to wait between two tasks/get. */
  pollIntervalMs: number;
  /** How long a run's lease lasts without a heartbeat; a dead instance's task fails after it. */
  leaseMs: number;
  maxWorkingPerOwner: number;
  maxStoredPerOwner: number;
  /** The largest result (serialized JSON) a task keeps; a larger one fails the task. */
  maxResultBytes: number;
  /** The longest a task runs before its signal fires (the tool time limit). */
  timeLimitMs: number;
}

/** What the core needs to run tasks: the shared store, the bus, and the host's after-response hook. */
export interface TaskAdapters {
  store: TaskStore;
  settings: TaskSettings;
  /** Keep the instance alive for `work` after the response (Next's `after()`); absent: the promise just runs. */
  runAfterResponse?: (work: () => Promise<void>) => void;
}

/** A cancelled task's status message once its handler has settled. */
export const CANCELLED_AND_STOPPED = "Cancelled by the client; its run has stopped";

/** How often a task waiting for its client's answer looks for them. */
const ANSWER_POLL_MS = 150;
/** The sweep of expired tasks runs at most this often per instance. */
const SWEEP_EVERY_MS = 60_000;
/**
 * How long a handler may take to settle after its time limit fired its signal. One that ignores
 * the signal ends the task anyway then: a task must not stay `working` (its lease renewed by a
 * live instance) for as long as the process lives.
 */
export const TIME_LIMIT_GRACE_MS = 1_000;
/** The least time a task's result stays readable after its run may have ended at the latest. */
const READABLE_AFTER_RUN_MS = 60_000;

/**
 * The ttl a task gets: the configured one, but never so short that a task could expire while
 * it still runs (it would vanish mid-run and stop counting against its owner's limits).
 * Receivers MAY override the ttl (2025-11-25 basic/utilities/tasks §TTL and resource management).
 */
export function effectiveTtlMs(settings: TaskSettings): number {
  return Math.max(settings.ttlMs, settings.timeLimitMs + TIME_LIMIT_GRACE_MS + settings.leaseMs + READABLE_AFTER_RUN_MS);
}

/** The one message a dead run's task ends with. */
export function leaseExpiredError(leaseMs: number): TaskError {
  return {
    code: ErrorCode.InternalError,
    message: `The server instance running this task stopped (no heartbeat for ${Math.round(leaseMs / 1000)} s); the task did not finish. Start it again.`,
  };
}

/** A run that threw past the tool-error mapping: a protocol-level failure (SEP-2663 `failed` + JSON-RPC error). */
export function failedEnding(thrown: unknown): TaskEnding {
  const error = toMcpError(thrown);
  return { status: "failed", error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
}

function digest(args: unknown): string {
  return createHash("sha256").update(JSON.stringify(args ?? {})).digest("hex").slice(0, 32);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A running task as its handler sees it: questions go to the store, progress too. */
export interface TaskRun {
  record: TaskRecord;
  signal: AbortSignal;
  ask(method: ServerRequestMethod, params: Record<string, unknown>, key: string | undefined): Promise<unknown>;
  progress(progress: number, total: number | undefined, message: string | undefined): void;
}

/**
 * Runs and answers for durable tasks on this instance. Any instance answers for any task (the
 * store is shared); the instance that runs one keeps its lease alive and aborts it when a cancel
 * arrives, by the bus or by its own heartbeat reading the store.
 */
export class TaskRuntime {
  private readonly running = new Map<string, AbortController>();
  /** whenEnded's one poll per task being waited for on this instance, by owner and id. */
  private readonly waits = new Map<string, Promise<void>>();
  private lastSweep = 0;

  constructor(
    private readonly adapters: TaskAdapters,
    private readonly bus: ClusterBus,
    /** Where status changes go (SEP-2663 notifications/tasks on the owner's listen streams, any instance). */
    private readonly hub: NotificationHub,
  ) {
    bus.subscribe((message) => {
      if (message.kind === "task_cancelled") this.abortLocal(message.taskId, "cancelled from another instance");
    });
  }

  get settings(): TaskSettings {
    return this.adapters.settings;
  }

  /** Make the owner's task durably, within its limits; it is not running yet. */
  async create(owner: string, tool: string, args: unknown): Promise<TaskRecord> {
    const { store, settings } = this.adapters;
    const now = new Date();
    this.maybeSweep(now);
    const ttlMs = effectiveTtlMs(settings);
    const task = {
      id: randomUUID(),
      owner,
      tool,
      argsDigest: digest(args),
      ttlMs,
      pollIntervalMs: settings.pollIntervalMs,
      expiresAt: new Date(now.getTime() + ttlMs),
      leaseExpiresAt: new Date(now.getTime() + settings.leaseMs),
      instance: INSTANCE_ID,
      createdAt: now,
    };
    // The stored row, not a copy built beside it: the creation answer's times are tasks/get's.
    const stored = await store.create(task, { maxWorking: settings.maxWorkingPerOwner, maxStored: settings.maxStoredPerOwner });
    if ("refused" in stored) throw taskLimit(stored.refused, stored.refused === "working" ? settings.maxWorkingPerOwner : settings.maxStoredPerOwner);
    return stored;
  }

  /**
   * Run `work` for a created task after the response: heartbeat, time limit, cancellation, and
   * the one terminal write of how it ended. `ended` hears that ending as it was written (a result
   * over the size bound is a failure; an outcome the store refused, the failure written instead),
   * and whether the run was cancelled.
   */
  run(record: TaskRecord, work: (run: TaskRun) => Promise<TaskEnding>, ended?: (ending: TaskEnding, cancelled: boolean) => void): void {
    const { store, settings } = this.adapters;
    const controller = new AbortController();
    this.running.set(record.id, controller);
    let asked = 0;
    const keys = new Set<string>();
    const progress = new ProgressWriter((done, total, message) => store.progress(record.id, done, total, message));
    const heartbeat = setInterval(() => {
      store.renew(record.id, new Date(Date.now() + settings.leaseMs), INSTANCE_ID).then(
        (working) => {
          // Ended elsewhere (cancelled on another instance whose bus message we missed): stop.
          if (!working) controller.abort(new McpError(ErrorCode.InternalError, "The task was cancelled"));
        },
        (thrown: unknown) => logUnexpected("task heartbeat", thrown),
      );
    }, Math.max(50, Math.floor(settings.leaseMs / 3)));
    // The tool time limit, as on a plain call (tool-timeout.ts): the handler's signal fires with a
    // ToolTimeout, which the tool-error mapping turns into the same `timeout` result; a handler
    // that ignores it is given up on after a grace period.
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    let abandon!: (ending: TaskEnding) => void;
    const abandoned = new Promise<TaskEnding>((resolve) => (abandon = resolve));
    const limit = setTimeout(() => {
      const timeout = new ToolTimeout(settings.timeLimitMs);
      controller.abort(timeout);
      giveUp = setTimeout(() => abandon({ status: "failed", error: { code: ErrorCode.InternalError, message: timeout.message } }), TIME_LIMIT_GRACE_MS);
    }, settings.timeLimitMs);
    const taskRun: TaskRun = {
      record,
      signal: controller.signal,
      ask: async (method, params, key) => {
        const name = key ?? `${REQUIRED_CLIENT_CAPABILITY[method]}_${++asked}`;
        // Keys are unique within the task (basic/patterns/mrtr §server requirements): a reused one
        // would be "answered" at once by the earlier question's answer.
        if (keys.has(name)) throw new McpError(ErrorCode.InternalError, `The tool asked twice under the input key "${name.slice(0, 100)}": keys must be unique within a task`);
        keys.add(name);
        await store.ask(record.id, { [name]: { method, params } satisfies TaskInputRequest });
        this.announce(record.id, record.owner);
        for (;;) {
          await sleep(ANSWER_POLL_MS, controller.signal);
          const state = await store.answers(record.id);
          if (!state || state.status !== "working") throw new McpError(ErrorCode.InternalError, "The task ended while it waited for input");
          if (Object.hasOwn(state.inputResponses, name)) return state.inputResponses[name];
        }
      },
      progress: (done, total, message) => progress.report(done, total, message),
    };
    const finished = Promise.race([work(taskRun).then((ending) => this.bounded(ending)), abandoned])
      .catch(failedEnding)
      .then(async (ending) => {
        // The last progress the handler reported is stored before the task ends (the guard on a
        // progress write drops it once the task is no longer working).
        await progress.settled();
        const written = await this.end(record, ending);
        if (!written && controller.signal.aborted) await store.runStopped(record.id, CANCELLED_AND_STOPPED);
        try {
          // Ended elsewhere first (a cancel): the run's own ending, which `cancelled` qualifies.
          ended?.(written ?? ending, controller.signal.aborted);
        } catch (thrown) {
          logUnexpected("task ended", thrown);
        }
      })
      .catch((thrown: unknown) => logUnexpected("task end", thrown))
      .finally(() => {
        clearInterval(heartbeat);
        clearTimeout(limit);
        clearTimeout(giveUp);
        this.running.delete(record.id);
      })
      .then(() => undefined);
    if (this.adapters.runAfterResponse) this.adapters.runAfterResponse(() => finished);
  }

  /**
   * The terminal write, and the ending written (undefined: the task had ended already). An ending
   * the store refuses is not left unwritten, the task `working` until its lease reads it as a dead
   * instance's: it fails with a message that says so.
   */
  private async end(record: TaskRecord, ending: TaskEnding): Promise<TaskEnding | undefined> {
    const { store } = this.adapters;
    let written = ending;
    let ended: boolean;
    try {
      ended = await store.end(record.id, ending, {});
    } catch (thrown) {
      logUnexpected("task end", thrown);
      written = { status: "failed", error: { code: ErrorCode.InternalError, message: "The task ended, but its outcome could not be stored. Start it again." } };
      ended = await store.end(record.id, written, {});
    }
    if (!ended) return undefined;
    this.announce(record.id, record.owner);
    return written;
  }

  /** The owner's task; a working task whose lease ran out is failed here, by whoever reads it first. */
  async get(id: string, owner: string): Promise<TaskRecord | undefined> {
    const { store, settings } = this.adapters;
    const now = new Date();
    const task = await store.get(id, owner, now);
    if (!task || task.status !== "working" || task.leaseExpiresAt >= now) return task;
    if (await store.end(id, { status: "failed", error: leaseExpiredError(settings.leaseMs) }, { leaseBefore: now })) this.announce(id, owner);
    return store.get(id, owner, now);
  }

  /**
   * Reads each of `owner`'s `taskIds`, as tasks/get would: a working one whose lease ran out (its
   * instance died) is failed and announced here (get above). Resolves with the ids still working.
   * A listen stream waiting on tasks calls it every lease period, so that it hears of such a
   * failure without anyone reading the task (listen.ts).
   */
  async stillWorking(taskIds: readonly string[], owner: string): Promise<string[]> {
    const tasks = await Promise.all(taskIds.map((id) => this.get(id, owner)));
    return taskIds.filter((_id, i) => tasks[i]?.status === "working");
  }

  /**
   * Resolves once the owner's task is no longer working (or is gone), or at `deadline`, from one
   * store read every `pollMs` on this instance however many requests wait for it: each waiter
   * polling on its own cost five statements a second, and a few hundred tasks/result on one task
   * made the database run 2,500 a second (outside probe, 2026-11-29).
   */
  whenEnded(id: string, owner: string, pollMs: number, deadline: number): Promise<void> {
    const key = `${owner}\n${id}`;
    const shared = this.waits.get(key);
    if (shared) return shared;
    const poll = (async () => {
      try {
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, pollMs));
          const task = await this.get(id, owner);
          if (!task || task.status !== "working" || Date.now() >= deadline) return;
        }
      } finally {
        this.waits.delete(key);
      }
    })();
    this.waits.set(key, poll);
    return poll;
  }

  /** tasks/update: false when the owner has no such task. */
  async answer(id: string, owner: string, responses: Record<string, unknown>): Promise<boolean> {
    const outcome = await this.adapters.store.answer(id, owner, responses, new Date());
    // Only an accepted answer changed the task; an ignored one (a key never asked or already
    // answered, SEP-2663 §Task Update Requests) has nothing to announce.
    if (outcome === "accepted") this.announce(id, owner);
    return outcome !== "unknown";
  }

  /**
   * tasks/cancel: the task reads `cancelled` at once; its run stops here or, through the bus,
   * on the instance that runs it. `unknown` when the owner has no such task; `ended` when this
   * call cancelled it; otherwise the terminal status it already had (or reached first: the run's
   * own ending may win the race, and a cancel must not claim a task it did not stop).
   */
  async cancel(id: string, owner: string): Promise<"unknown" | "ended" | Exclude<StoredTaskStatus, "working">> {
    const task = await this.get(id, owner);
    if (!task) return "unknown";
    if (task.status !== "working") return task.status;
    const ended = await this.adapters.store.end(id, { status: "cancelled", statusMessage: "Cancelled by the client" }, { owner });
    if (ended) {
      this.announce(id, owner);
      this.abortLocal(id, "cancelled");
      this.bus.publish({ kind: "task_cancelled", taskId: id });
      return "ended";
    }
    const now = await this.adapters.store.get(id, owner, new Date());
    return now && now.status !== "working" ? now.status : "unknown";
  }

  /** A notification for a session's GET stream, on whichever instance it is open (2025-11-25 task progress). */
  notifySession(sessionId: string, method: string, params: Record<string, unknown>): void {
    this.hub.publish({ kind: "session_notification", sessionId, method, params });
  }

  /** Publish the task's current DetailedTask to its owner's listen streams, wherever they are. */
  private announce(id: string, owner: string): void {
    this.adapters.store.get(id, owner, new Date()).then(
      (task) => {
        if (task) this.hub.publish({ kind: "task_status", owner, tool: task.tool, task: detailedTask(task) });
      },
      (thrown: unknown) => logUnexpected("task status notification", thrown),
    );
  }

  private abortLocal(id: string, reason: string): void {
    this.running.get(id)?.abort(new McpError(ErrorCode.InternalError, `The task was ${reason}`));
  }

  /** A result larger than the bound is not kept: the task fails and says why. */
  private bounded(ending: TaskEnding): TaskEnding {
    if (ending.status !== "completed") return ending;
    const bytes = Buffer.byteLength(JSON.stringify(ending.result));
    if (bytes <= this.adapters.settings.maxResultBytes) return ending;
    return {
      status: "failed",
      error: { code: ErrorCode.InternalError, message: `The task's result (${bytes} bytes) exceeds the ${this.adapters.settings.maxResultBytes}-byte limit for task results` },
    };
  }

  private maybeSweep(now: Date): void {
    if (now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    this.adapters.store.sweep(now).catch((thrown: unknown) => logUnexpected("task sweep", thrown));
  }
}

/**
 * The documented refusal when an owner has too many tasks (docs/tasks.md §limits): a JSON-RPC
 * error, also when a handler's ctx.continueAsTask() meets it (`taskStarts: "when_handler_asks"`),
 * where an McpError would be folded into an isError result (outside probe, 2026-11-29).
 */
export function taskLimit(kind: "working" | "stored", limit: number): McpError {
  return new ProtocolError(
    ErrorCode.RateLimited,
    kind === "working"
      ? `Too many running tasks: at most ${limit} per caller; wait for one to finish or cancel one`
      : `Too many stored tasks: at most ${limit} per caller; they expire after their ttlMs`,
    { taskLimit: kind, limit },
  );
}
