import { logUnexpected } from "../runtime/request-log";

interface Progress {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

/**
 * A running task's progress on its way to the store: one write at a time, in the order the handler
 * reported, only the newest value written when several arrive during a write (a chatty handler
 * costs one statement in flight, not a backlog), and the ending waits for it. Fired and forgotten,
 * each report went out on whichever pool connection was free: an older value could land after a
 * newer one, and the terminal write could overtake the last report, whose `status = 'working'`
 * guard then dropped it — a completed task without its final progress (tests/e2e/tasks, CI).
 */
export class ProgressWriter {
  private pending: Progress | undefined;
  private writing: Promise<void> | undefined;

  constructor(private readonly write: (progress: number, total: number | undefined, message: string | undefined) => Promise<void>) {}

  report(progress: number, total: number | undefined, message: string | undefined): void {
    // A skipped report's message still counts: the store keeps the last message given (COALESCE).
    this.pending = { progress, total, message: message ?? this.pending?.message };
    this.writing ??= this.drain();
  }

  /** Resolves once everything reported so far is written (or failed, and logged). */
  settled(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    for (let next = this.pending; next; next = this.pending) {
      this.pending = undefined;
      try {
        await this.write(next.progress, next.total, next.message);
      } catch (thrown) {
        logUnexpected("task progress", thrown);
      }
    }
    this.writing = undefined;
  }
}
