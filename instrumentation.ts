/**
 * Runs once when the server starts (not at build). The Node.js-only start-up checks live in
 * lib/worlds/startup.ts, imported only on that runtime (Next compiles this file for both).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkStartup } = await import("./lib/worlds/startup");
  checkStartup();
}
