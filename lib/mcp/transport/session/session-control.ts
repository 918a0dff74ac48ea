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

  // Each a function of the stored list, applied atomically by the store: two subscribes sent at
  // once both land (read here and written back, one of them was lost).
  subscribe(uri: string): Promise<void> {
    return this.sessions.update(this.id, ({ subscriptions = [] }) => {
      if (subscriptions.includes(uri)) return undefined;
      if (subscriptions.length >= MAX_RESOURCE_SUBSCRIPTIONS) {
        throw McpError.invalidParams(`Invalid params: a session follows at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources at once; unsubscribe from one first`, {
          subscribed: subscriptions.length,
        });
      }
      return { subscriptions: [...subscriptions, uri] };
    });
  }

  unsubscribe(uri: string): Promise<void> {
    return this.sessions.update(this.id, ({ subscriptions = [] }) => (subscriptions.includes(uri) ? { subscriptions: subscriptions.filter((u) => u !== uri) } : undefined));
  }
}
