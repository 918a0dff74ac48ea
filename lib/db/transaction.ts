import type { Pool } from "pg";

/** One parameterized statement; rows as the driver parses them. */
export type StatementRunner = <T>(text: string, params: readonly unknown[]) => Promise<T[]>;

/**
 * `work`'s statements in one transaction on one of the pool's connections: committed when it
 * resolves, rolled back when it throws (the rollback's own failure is not the error to report).
 */
export async function pgTransaction<T>(pool: Pick<Pool, "connect">, work: (sql: StatementRunner) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(async <R>(text: string, params: readonly unknown[]) => (await client.query(text, [...params])).rows as R[]);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
