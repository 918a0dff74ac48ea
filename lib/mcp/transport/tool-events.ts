import type { JsonRpcResponse } from "../../jsonrpc";
import { AudiencePresence } from "../cluster/audience-presence";
import type { ClusterBus, ToolEventName } from "../cluster/cluster";

/**
 * Seed 001's named events for a caller's tool runs — tool-progress {toolName, progress 0–100},
 * tool-complete {toolName, result}, tool-error {toolName, error} — delivered to the GET streams
 * of the same audience (the subject, or the session of an anonymous caller) on every instance.
 * Standard MCP clients ignore named events; ChatGPT-style widgets listen for them.
 */

export type ToolEventSink = (audience: string, event: ToolEventName, data: Record<string, unknown>) => void;

export interface ToolEventStreams {
  deliver: ToolEventSink;
  /** Whether any GET stream of this instance belongs to the audience. */
  listening(audience: string): boolean;
}

export class ToolEvents {
  private streams: ToolEventStreams = { deliver: () => undefined, listening: () => false };
  /**
   * Who listens on the other instances: an event goes on the bus only for an audience with a
   * stream elsewhere (else every call of a caller with an audience would cost a PUBLISH). This
   * instance's GET streams report theirs through it (standalone-streams.ts).
   */
  readonly presence: AudiencePresence | undefined;

  /** `shared`: other instances may hold GET streams too, so events may go on the bus. */
  constructor(
    private readonly bus: ClusterBus,
    private readonly shared: boolean,
  ) {
    bus.subscribe((message) => {
      if (message.kind === "tool_event") this.streams.deliver(message.audience, message.event, message.data);
    });
    this.presence = shared ? new AudiencePresence(bus) : undefined;
  }

  /** Where this instance's GET streams take their events (the session era). */
  deliverTo(streams: ToolEventStreams): void {
    this.streams = streams;
  }

  /** Whether a call of `audience` needs its events at all (a single instance with nobody listening does not). */
  wanted(audience: string | undefined): audience is string {
    return audience !== undefined && (this.shared || this.streams.listening(audience));
  }

  progress(audience: string, toolName: string, progress: number, total: number | undefined): void {
    const percent = total && total > 0 ? (progress / total) * 100 : progress;
    this.emit(audience, "tool-progress", { toolName, progress: Math.max(0, Math.min(100, Math.round(percent))) });
  }

  /** The end of a tools/call: its result, an isError result, or a JSON-RPC error. */
  finished(audience: string, toolName: string, response: JsonRpcResponse): void {
    if ("error" in response) {
      this.emit(audience, "tool-error", { toolName, error: { code: response.error.code, message: response.error.message } });
      return;
    }
    const result = response.result;
    // A 2026-07-28 call paused for client input has not finished: it will run again.
    if (result.resultType === "input_required") return;
    if (result.isError === true) {
      const text = Array.isArray(result.content) ? (result.content[0] as { text?: unknown } | undefined)?.text : undefined;
      this.emit(audience, "tool-error", { toolName, error: { message: typeof text === "string" ? text : "Tool execution failed" } });
      return;
    }
    // The concise part only: structuredContent stays small (tools keep it under 10 KB).
    this.emit(audience, "tool-complete", { toolName, result: { structuredContent: result.structuredContent ?? null } });
  }

  private emit(audience: string, event: ToolEventName, data: Record<string, unknown>): void {
    this.streams.deliver(audience, event, data);
    if (this.presence?.mayListenElsewhere(audience)) this.bus.publish({ kind: "tool_event", audience, event, data });
  }
}

/** Whose GET streams hear of a call: its subject's, or for an anonymous caller its session's. */
export function audienceOf(subject: string | undefined, sessionId: string | undefined): string | undefined {
  if (subject) return `sub:${subject}`;
  return sessionId ? `session:${sessionId}` : undefined;
}
