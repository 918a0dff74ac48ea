/**
 * Runs `task` when the process is told to stop (SIGTERM from a container runtime or a process
 * manager, SIGINT from a terminal), once, however often it is registered. It does not stop the
 * process: `next start` has its own handler, which stops taking connections and exits once the
 * open ones end; a task here is what makes them end (lib/mcp endLongLivedStreams).
 */
const registered = new Set<() => void>();

export function onProcessShutdown(task: () => void): void {
  if (registered.has(task)) return;
  registered.add(task);
  let ran = false;
  const run = () => {
    if (ran) return;
    ran = true;
    task();
  };
  process.once("SIGTERM", run);
  process.once("SIGINT", run);
}
