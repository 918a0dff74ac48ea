export interface RunningNextServer {
  url: string;
  port: number;
  pid: number;
  /** The server process (`node scripts/start.mjs`), to signal or to wait for. */
  child: import("node:child_process").ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}
export const ROOT: string;
/** `npm start`'s script (scripts/start.mjs). */
export const START_SCRIPT: string;
export function distDir(): string;
export function hasBuild(): boolean;
export function freePort(): Promise<number>;
export function startNextServer(options?: {
  env?: Record<string, string>;
  port?: number;
  readyPath?: string;
  timeoutMs?: number;
  quiet?: boolean;
}): Promise<RunningNextServer>;
