import type { LogicalStream } from "./resumable-streams";

/**
 * The GET stream of each session (basic/transports §listening for messages from the server):
 * where notifications not tied to a request go — list changes, resource updates. A session's
 * newest stream receives them; a message goes to one stream only, never broadcast (§multiple
 * connections).
 */
export class StandaloneStreams {
  private readonly bySession = new Map<string, LogicalStream>();


  set(sessionKey: string, stream: LogicalStream): void {
    this.bySession.set(sessionKey, stream);
  }

  remove(sessionKey: string, stream: LogicalStream): void {
    if (this.bySession.get(sessionKey) === stream) this.bySession.delete(sessionKey);
  }

  get(sessionKey: string): LogicalStream | undefined {
    const s = this.bySession.get(sessionKey);
    if (s?.finished) {
      this.bySession.delete(sessionKey);
      return undefined;
    }
    return s;
  }

  entries(): [string, LogicalStream][] {
    return [...this.bySession.entries()].filter(([, s]) => !s.finished);
  }
}
