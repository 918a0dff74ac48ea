/**
 * Runs `task` when the process is told to stop (SIGTERM from a container runtime or a process
 * manager, SIGINT from a terminal), once, however often it is registered. It does not stop the
 * process: `next start` has its own handler, which stops taking connections and exits once the
 * open ones end; a task here is what makes them end (lib/mcp endLongLivedStreams).
 *
 * The listeners are installed once per process, kept on globalThis: `next dev` evaluates a route's
 * modules again after each edit, and a listener per evaluation ran into Node's
 * MaxListenersExceededWarning (review).
 */
interface ShutdownHooks {
  tasks: Set<() => void>;
  ran: boolean;
}

const KEY = Symbol.for("worldcrafter.process-shutdown");

function hooks(): ShutdownHooks {
  const holder = globalThis as typeof globalThis & { [KEY]?: ShutdownHooks };
  let found = holder[KEY];
  if (!found) {
    const created: ShutdownHooks = { tasks: new Set(), ran: false };
    const run = () => {
      if (created.ran) return;
      created.ran = true;
      for (const task of created.tasks) task();
    };
    process.once("SIGTERM", run);
    process.once("SIGINT", run);
    holder[KEY] = created;
    found = created;
  }
  return found;
}

export function onProcessShutdown(task: () => void): void {
  hooks().tasks.add(task);
}
