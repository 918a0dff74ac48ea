import { randomUUID } from "node:crypto";
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
  /** The HTTP status of a request refused before any JSON-RPC method ran. */
  status?: number;
}

export type RequestLogger = (entry: RequestLogEntry) => void;

/** The log line of one answered JSON-RPC request, the same in both eras. */
export function requestLogEntry(
  request: { method: string; params?: Record<string, unknown> },
  response: { result: Record<string, unknown> } | { error: { code: number } },
  context: { started: number; cancelled: boolean; session?: string; subject?: string },
): RequestLogEntry {
  const tool = request.method === "tools/call" && typeof request.params?.name === "string" ? request.params.name.slice(0, 128) : undefined;
  const failed = "error" in response;
  return {
    method: request.method.slice(0, 128),
    ...(tool ? { tool } : {}),
    ...(context.session ? { session: context.session.slice(0, 8) } : {}),
    ...(context.subject ? { subject: context.subject } : {}),
    ms: Math.round((performance.now() - context.started) * 100) / 100,
    outcome: context.cancelled ? "cancelled" : failed ? "error" : response.result.isError === true ? "tool_error" : "ok",
    ...(failed ? { code: response.error.code } : {}),
  };
}

export const stdoutRequestLogger: RequestLogger = (entry) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
};

export const silentRequestLogger: RequestLogger = () => undefined;

/** Unexpected failures: logged with their stack for the operator, never sent to the client. */
/** A short id that ties an unexpected failure's generic answer to its line in the server log. */
export function errorReference(): string {
  return randomUUID().slice(0, 8);
}

/** What a client reads about an unexpected failure: nothing of the error itself. */
export function unexpectedFailureText(reference: string): string {
  return `Internal error (reference ${reference}); the server log has the details.`;
}

export { logUnexpected, logWarning } from "../../log/operator-log";
