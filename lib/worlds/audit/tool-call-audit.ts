import { hash } from "node:crypto";
import type { ToolCallObserver, ToolCallRecord } from "../../mcp";
import { logUnexpected } from "../../log/operator-log";
import { subjectOf } from "../owner";

/**
 * The audit log of tool calls: tool, subject, duration, outcome and a digest of the arguments —
 * never the arguments themselves, nor tokens (they may hold secrets or personal data; the digest
 * still tells identical calls apart). Rows are written in batches after the answer has gone —
 * one insert per `flushAfterMs` window however many calls it holds — so auditing adds no
 * database round trip to a call's latency and little to its cost.
 *
 * A call only queues its record; the row (digest included) is built when the batch is written.
 * Per call, the digest's hashing and canonical JSON ran on cold caches between requests and cost
 * several times what the same work costs in one warm loop over the batch (bench/PROFILING.md,
 * round 4). The arguments are held in memory until then, never written out.
 */

export interface AuditRow {
  tool: string;
  subject: string;
  durationMs: number;
  outcome: string;
  argsDigest: string;
}

export interface AuditSink {
  observe: ToolCallObserver;
  /** Writes everything queued so far (tests, shutdown). */
  flush(): Promise<void>;
}

export interface AuditOptions {
  write(rows: AuditRow[]): Promise<void>;
  /**
   * Runs the write once the response is on its way. On serverless platforms this must keep the
   * instance alive until the task settles (Next's `after`, Vercel's `waitUntil`).
   */
  defer?: (task: () => Promise<void>) => void;
  /** How long rows gather before they are written together. */
  flushAfterMs?: number;
  maxBatch?: number;
  /** Rows kept while the database is unreachable; beyond it the oldest are dropped, and that is logged. */
  maxQueued?: number;
}

/**
 * JSON with object keys sorted (UTF-16 order) and undefined members left out, so equal arguments
 * always hash the same. Built by appending to one string, with no entry arrays, sort comparator or
 * per-key closures: this runs once per tool call, and its short-lived arrays were a measurable part
 * of a trivial call's garbage (bench/PROFILING.md, round 8).
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // The default sort compares UTF-16 code units, as `<` on strings does.
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    out += (out.length === 1 ? "" : ",") + JSON.stringify(key) + ":" + canonicalJson(member);
  }
  return `${out}}`;
}

export function argumentsDigest(args: Readonly<Record<string, unknown>>): string {
  // The one-shot hash: a third of createHash().update().digest()'s cost on inputs this small.
  return `sha256:${hash("sha256", canonicalJson(args), "hex").slice(0, 32)}`;
}

export function toAuditRow(record: ToolCallRecord): AuditRow {
  return {
    tool: record.tool,
    subject: subjectOf({ auth: record.auth }),
    durationMs: Math.max(0, Math.round(record.durationMs)),
    outcome: record.outcome,
    argsDigest: argumentsDigest(record.arguments),
  };
}

/** The rows of a batch; a record that cannot be digested is reported and left out, not the batch. */
function rowsOf(records: readonly ToolCallRecord[]): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const record of records) {
    try {
      rows.push(toAuditRow(record));
    } catch (thrown) {
      logUnexpected(`audit: the row of a ${record.tool} call`, thrown);
    }
  }
  return rows;
}

/** At most one "queue full" line per this long. */
const DROP_REPORT_INTERVAL_MS = 30_000;

export function createAuditSink(options: AuditOptions): AuditSink {
  const maxBatch = options.maxBatch ?? 500;
  const maxQueued = options.maxQueued ?? 10_000;
  const flushAfterMs = options.flushAfterMs ?? 100;
  /** Records of finished calls, turned into rows when their batch is written. */
  let queue: ToolCallRecord[] = [];
  /** The pending timed flush: whoever starts a window keeps the instance alive until it is written. */
  let windowDone: Promise<void> | undefined;
  let running: Promise<void> = Promise.resolve();

  /**
   * Writes the records queued when it starts, a batch at a time. Records that arrive during a
   * write wait for their own window: draining them at once kept a write in flight for as long
   * as calls kept coming (one insert per one or two calls at c=1, bench/PROFILING.md round 9).
   */
  async function drain(): Promise<void> {
    let owed = queue.length;
    while (owed > 0 && queue.length > 0) {
      const records = queue.slice(0, Math.min(maxBatch, owed));
      queue = queue.slice(records.length);
      owed -= records.length;
      const batch = rowsOf(records);
      if (batch.length === 0) continue;
      try {
        await options.write(batch);
      } catch (thrown) {
        // The calls themselves succeeded; losing their audit rows is reported, never raised.
        logUnexpected(`audit: ${batch.length} tool-call row(s) not written`, thrown);
      }
    }
  }

  // While the queue stays full every call drops a row: say so once per interval, with the count,
  // rather than one error line per call.
  let droppedSinceReport = 0;
  let lastDropReport = -Infinity;
  function reportDropped(): void {
    droppedSinceReport++;
    const now = Date.now();
    if (now - lastDropReport < DROP_REPORT_INTERVAL_MS) return;
    lastDropReport = now;
    logUnexpected("audit", new Error(`audit queue full (${maxQueued} rows): dropped ${droppedSinceReport} oldest row(s)`));
    droppedSinceReport = 0;
  }

  function flush(): Promise<void> {
    running = running.then(drain);
    return running;
  }

  function openWindow(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        windowDone = undefined;
        void flush().then(resolve);
      }, flushAfterMs);
      // A waiting audit write must not keep a finished process (a script, a test) alive.
      timer.unref?.();
    });
    return done;
  }

  return {
    observe(record) {
      queue.push(record);
      if (queue.length > maxQueued) {
        queue.splice(0, queue.length - maxQueued);
        reportDropped();
      }
      if (queue.length >= maxBatch) {
        void flush();
        return;
      }
      if (!windowDone) {
        const done = (windowDone = openWindow());
        options.defer?.(() => done);
      }
    },
    flush,
  };
}
