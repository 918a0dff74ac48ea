import { worldcrafterResourceServer } from "./authorization";

/**
 * The authorization configuration is checked when the server starts, so a server that may not
 * run — an external issuer without a resource URL, bad algorithms — exits with a message
 * naming the variable. (Next only logs an error thrown from register() and keeps serving, which
 * would answer every request with a 500.)
 */
export function checkStartup(): void {
  try {
    worldcrafterResourceServer();
  } catch (thrown) {
    console.error(`WorldCrafter cannot start: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    process.exit(1);
  }
}
