/**
 * One structured line per JSON-RPC request: method, tool, session, duration, outcome. Never a
 * token, argument value or claim — those may be secrets or personal data.
 */
export interface RequestLogEntry {
  method: string;
  tool?: string;
  session?: string;
  subject?: string;
  ms: number;
  outcome: "ok" | "error" | "tool_error" | "cancelled";
  code?: number;
}

export type RequestLogger = (entry: RequestLogEntry) => void;

export const stdoutRequestLogger: RequestLogger = (entry) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
};

export const silentRequestLogger: RequestLogger = () => undefined;

/** Unexpected failures: logged with their stack for the operator, never sent to the client. */
export function logUnexpected(where: string, thrown: unknown): void {
  const detail = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), level: "error", where, detail })}\n`);
}
