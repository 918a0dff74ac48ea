/**
 * What the hosting runtime offers an endpoint: the Next routes pass `after` from next/server and
 * the process's stop signal (lib/http/process-shutdown.ts); a test or script may pass neither.
 */
export interface Platform {
  /** Run `task` after the response, keeping a serverless instance alive until it settles. */
  afterResponse?: (task: () => Promise<void>) => void;
  /** Run `task` when the process is told to stop (a long-running host: SIGTERM). */
  onShutdown?: (task: () => void) => void;
}
