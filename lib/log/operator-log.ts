/**
 * Lines for the operator on stderr, one JSON object each: a failure nobody expected (where, and its
 * stack; the client is told only a reference) and a warning that is no request's failure. At the
 * bottom of the layers, so every floor may log (docs/architecture.md).
 */

/** Something the operator should know that is not a failure of a request (a connection replaced). */
export function logWarning(where: string, detail: string): void {
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), level: "warn", where, detail })}\n`);
}

export function logUnexpected(where: string, thrown: unknown): void {
  const detail = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), level: "error", where, detail })}\n`);
}
