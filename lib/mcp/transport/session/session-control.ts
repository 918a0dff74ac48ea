import type { SessionControl } from "../../methods";
import type { LoggingLevel } from "../../protocol/types";
import type { SessionStore } from "../session-store";
import { McpError } from "../../../jsonrpc";
import { MAX_RESOURCE_SUBSCRIPTIONS } from "../../protocol/listen-filter";

/** Session state changes a method may make, persisted through the SessionStore. */
export class StoredSessionControl implements SessionControl {
  constructor(
    private readonly sessions: SessionStore,
    private readonly id: string,
  ) {}

  setLogLevel(level: LoggingLevel): Promise<void> {
    return this.sessions.update(this.id, { logLevel: level });
  }

  async subscribe(uri: string): Promise<void> {
    const current = (await this.sessions.get(this.id))?.subscriptions ?? [];
    if (current.includes(uri)) return;
    if (current.length >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw McpError.invalidParams(`Invalid params: a session follows at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources at once; unsubscribe from one first`, {
        subscribed: current.length,
      });
    }
    await this.sessions.update(this.id, { subscriptions: [...current, uri] });
  }

  async unsubscribe(uri: string): Promise<void> {
    const current = (await this.sessions.get(this.id))?.subscriptions ?? [];
    await this.sessions.update(this.id, { subscriptions: current.filter((u) => u !== uri) });
  }
}
