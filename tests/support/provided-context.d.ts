import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** `next start` in the default configuration (stateful sessions), fixture route enabled. */
    statefulUrl: string;
    /** `next start` with MCP_SESSION_MODE=stateless, fixture route enabled. */
    statelessUrl: string;
    /** The servers' PostgreSQL database (a fresh, migrated schema of `test`), for row counts. */
    databaseUrl: string;
  }
}
