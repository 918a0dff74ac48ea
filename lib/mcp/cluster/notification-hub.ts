import type { ClusterBus } from "./cluster";
import type { ServerEvent } from "./server-event";

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

/**
 * The hub of one instance of many: what is published here also reaches the other instances'
 * streams through the cluster bus, and what they publish reaches this one's. `local` events stay
 * here — each instance announces its own registry's changes to its own streams.
 */
export class ClusterHub implements NotificationHub {
  private readonly local = new LocalNotificationHub();

  constructor(private readonly bus: ClusterBus) {
    bus.subscribe((message) => {
      if (message.kind === "server_event") this.local.publish(message.event);
    });
  }

  publish(event: ServerEvent): void {
    this.local.publish(event);
    this.bus.publish({ kind: "server_event", event });
  }

  publishLocal(event: ServerEvent): void {
    this.local.publish(event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    return this.local.subscribe(listener);
  }
}
