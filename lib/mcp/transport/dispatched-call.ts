import type { JsonRpcRequest } from "../../jsonrpc";
import { audienceOf, type ToolEvents } from "./tool-events";

/** A tool run's named events go to this audience's GET streams (tool-events.ts). */
export interface ToolRunEvents {
  tool: string;
  audience: string;
}

/**
 * One request's run, the part both eras share (session/run-request.ts, stateless/run-call.ts):
 * dispatch, then settle with `succeed` or `fail`. A method that answers synchronously settles before
 * `run` returns, with no promise hop; a class rather than closures, so a trivial call allocates one
 * object for all of it.
 */
export abstract class DispatchedCall {
  /** When the call started, for the request log (0 when nothing logs). */
  protected readonly started: number;
  /** Set when the call is a tool run and someone may listen to its events. */
  protected readonly events: ToolRunEvents | undefined;

  protected constructor(message: JsonRpcRequest, subject: string | undefined, sessionId: string | undefined, toolEvents: ToolEvents, logging: boolean) {
    this.started = logging ? performance.now() : 0;
    const tool = message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : undefined;
    const audience = tool ? audienceOf(subject, sessionId) : undefined;
    this.events = tool && toolEvents.wanted(audience) ? { tool, audience } : undefined;
  }

  run(): void {
    let outcome: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      outcome = this.dispatch();
    } catch (thrown) {
      this.fail(thrown);
      return;
    }
    if (outcome instanceof Promise) outcome.then((result) => this.succeed(result), (thrown: unknown) => this.fail(thrown));
    else this.succeed(outcome);
  }

  protected abstract dispatch(): Record<string, unknown> | Promise<Record<string, unknown>>;
  protected abstract succeed(result: Record<string, unknown>): void;
  protected abstract fail(thrown: unknown): void;
}
