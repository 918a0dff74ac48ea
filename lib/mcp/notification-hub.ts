import type { ListKind } from "./registry";

/** Changes every connected listener may care about, whichever era its stream speaks. */
export type ServerEvent = { kind: "list_changed"; list: ListKind } | { kind: "resource_updated"; uri: string };

/**
 * Fan-out of server events to open streams: 2025 GET streams and 2026-07-28 listen streams.
 * In-process by default; a shared bus (Redis or PostgreSQL) replaces it when requests of one
 * client land on different instances.
 */
export interface NotificationHub {
  publish(event: ServerEvent): void;
  subscribe(listener: (event: ServerEvent) => void): () => void;
}

export class LocalNotificationHub implements NotificationHub {
  private readonly listeners = new Set<(event: ServerEvent) => void>();

  publish(event: ServerEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
