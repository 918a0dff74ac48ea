import { ErrorCode, McpError } from "../../jsonrpc";

/**
 * One clock for the keep-alives and lifetimes of every long-lived stream (GET streams, listens,
 * SSE answers), instead of a setInterval and a setTimeout per stream.
 *
 * Why: a Node timer keeps the async context it was created in (Node 24's AsyncContextFrame), and a
 * stream's timers are created inside its request, where Next's request stores are active. Two
 * timers per stream kept that frame alive for the stream's whole life (bench/PROFILING.md round 9).
 * Here a timer exists per period or lifetime length, not per stream, and is dropped once no stream
 * needs it (it keeps the context of the one request that created it, for as long as it runs).
 *
 * Keep-alives: a wheel per period, ticking every period / SLOTS. A stream joins the slot that just
 * fired, so its first beat comes between 7/8 of a period and a period after it started, then every
 * period; streams opened at different times beat in different ticks, not all at once.
 * Lifetimes: a queue per length. Deadlines of one length come in the order they were set, so the
 * queue's first entry is always the next one due and one timer per length suffices.
 */

const SLOTS = 8;

class Wheel {
  private readonly slots = Array.from({ length: SLOTS }, () => new Set<() => void>());
  private cursor = 0;
  private members = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly periodMs: number,
    private readonly drop: () => unknown,
  ) {}

  add(beat: () => void): () => void {
    const slot = this.slots[this.cursor] as Set<() => void>;
    // The same function twice is still two members: wrap it so each add is its own entry.
    const entry = () => beat();
    slot.add(entry);
    this.members++;
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), Math.max(1, this.periodMs / SLOTS));
      this.timer.unref?.();
    }
    return () => {
      if (!slot.delete(entry)) return;
      if (--this.members === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        this.drop();
      }
    };
  }

  private tick(): void {
    this.cursor = (this.cursor + 1) % SLOTS;
    // A beat may stop its own stream (a failed write): deleting from a Set while iterating is safe.
    for (const beat of this.slots[this.cursor] as Set<() => void>) beat();
  }
}

interface Deadline {
  at: number;
  expire: () => void;
}

class DeadlineQueue {
  /** In insertion order, which is deadline order: every entry waits the same length. */
  private readonly queue = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly lengthMs: number,
    private readonly drop: () => unknown,
  ) {}

  add(expire: () => void): () => void {
    const entry = { at: Date.now() + this.lengthMs, expire };
    this.queue.add(entry);
    if (!this.timer) this.arm(this.lengthMs);
    return () => {
      if (this.queue.delete(entry)) this.dropIfEmpty();
    };
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.fire(), delayMs);
    this.timer.unref?.();
  }

  /** Every deadline due now, in order (the process is going down). */
  expireAll(): void {
    for (const entry of [...this.queue]) {
      this.queue.delete(entry);
      entry.expire();
    }
    this.dropIfEmpty();
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const entry of this.queue) {
      if (entry.at > now) {
        this.arm(entry.at - now);
        return;
      }
      this.queue.delete(entry);
      entry.expire();
    }
    this.dropIfEmpty();
  }

  private dropIfEmpty(): void {
    if (this.queue.size > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.drop();
  }
}

const wheels = new Map<number, Wheel>();
const queues = new Map<number, DeadlineQueue>();

/** Calls `beat` every `periodMs` (0 or less: never) until the returned function is called. */
export function everyPeriod(periodMs: number, beat: () => void): () => void {
  if (!(periodMs > 0)) return () => undefined;
  let wheel = wheels.get(periodMs);
  if (!wheel) {
    const created: Wheel = new Wheel(periodMs, () => wheels.get(periodMs) === created && wheels.delete(periodMs));
    wheel = created;
    wheels.set(periodMs, wheel);
  }
  return wheel.add(beat);
}

/** Set once the process is going down: a lifetime begun after that ends at once. */
let closing = false;

/** Calls `expire` once after `lengthMs`, unless the returned function is called first. */
export function afterLifetime(lengthMs: number, expire: () => void): () => void {
  if (closing) {
    let stopped = false;
    // Not synchronously: the caller finishes setting its stream up first.
    setImmediate(() => stopped || expire());
    return () => void (stopped = true);
  }
  let queue = queues.get(lengthMs);
  if (!queue) {
    const created: DeadlineQueue = new DeadlineQueue(lengthMs, () => queues.get(lengthMs) === created && queues.delete(lengthMs));
    queue = created;
    queues.set(lengthMs, queue);
  }
  return queue.add(expire);
}

/**
 * The process is going down (SIGTERM): every stream with a lifetime (GET streams, listens) ends
 * now as at the end of its lifetime — a listen with its result, as subscriptions §graceful
 * closure asks of a server tearing one down, a GET stream closed for its client to reconnect,
 * elsewhere. Without it the server stopped taking connections and then waited on these streams,
 * which never end by themselves, until the platform killed it (outside audit). Requests in
 * flight are not touched: they finish, and the server waits for them.
 */
export function endLongLivedStreams(): void {
  closing = true;
  for (const task of closingTasks) task();
  for (const queue of [...queues.values()]) queue.expireAll();
}

const closingTasks = new Set<() => void>();

/** `task` runs first when the process goes down (endLongLivedStreams), before lifetimes end. */
export function whenClosing(task: () => void): void {
  closingTasks.add(task);
}

/**
 * A new long-lived stream while the process is going down (a GET or listen that came on a
 * connection already open): refused 503 with Retry-After, for the client to come back to another
 * instance, rather than opened to end at once (and, for a GET, to silence the session's stream
 * on an instance that stays).
 */
export function refuseWhenShuttingDown(): void {
  if (closing) throw new McpError(ErrorCode.InternalError, "Server shutting down: try again", { retryAfter: 1 }, 503, { "Retry-After": "1" });
}
