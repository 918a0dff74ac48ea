import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** `next start` in the default configuration (stateful sessions), fixture route enabled. */
    statefulUrl: string;
    /** `next start` with MCP_SESSION_MODE=stateless, fixture route enabled. */
    statelessUrl: string;
    /** `next start` (stateful) on an embedded PGlite database of its own, as `npm run dev` runs. */
    pgliteUrl: string;
    /** The built-in authorization server's keys folder the servers sign with (tests/support/auth.ts signs with it). */
    devIssuerDir: string;
    /** The servers' PostgreSQL database (a fresh, migrated schema of `test`), for row counts. */
    databaseUrl: string;
  }
}
