import { randomUUID } from "node:crypto";
import type { LoggingLevel } from "../types";

/** One 2025-era session (basic/transports §session management). */
export interface SessionRecord {
  id: string;
  protocolVersion: string;
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
  /** The authenticated subject that created it; requests from anyone else are answered 404. */
  subject: string | undefined;
  logLevel: LoggingLevel | undefined;
  subscriptions: string[];
  createdAt: number;
  expiresAt: number;
}

/**
 * Where sessions live. In-process by default; a shared store (PostgreSQL/Redis) replaces it when
 * requests of one client land on different instances.
 */
export interface SessionStore {
  create(record: SessionRecord): Promise<void>;
  /** May answer synchronously (in-process stores), saving a promise hop on every request. */
  get(id: string): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  update(id: string, patch: Partial<Pick<SessionRecord, "logLevel" | "subscriptions" | "expiresAt">>): Promise<void>;
  /** Returns false when there was no such session. */
  delete(id: string): Promise<boolean>;
}

/** A session id from a CSPRNG, visible ASCII only as the transport requires. */
export function mintSessionId(): string {
  return randomUUID();
}

/** In-process sessions with idle expiry and a bound on how many are kept. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();

  constructor(private readonly maxSessions = 10_000) {}

  async create(record: SessionRecord): Promise<void> {
    if (this.sessions.size >= this.maxSessions) this.evict();
    this.sessions.set(record.id, record);
  }

  get(id: string): SessionRecord | undefined {
    const record = this.sessions.get(id);
    if (!record) return undefined;
    if (record.expiresAt <= Date.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return record;
  }

  async update(id: string, patch: Partial<Pick<SessionRecord, "logLevel" | "subscriptions" | "expiresAt">>): Promise<void> {
    const record = this.sessions.get(id);
    if (record) this.sessions.set(id, { ...record, ...patch });
  }

  async delete(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  /** Drop expired sessions; if none expired, drop the oldest (Map keeps insertion order). */
  private evict(): void {
    const now = Date.now();
    for (const [id, record] of this.sessions) if (record.expiresAt <= now) this.sessions.delete(id);
    if (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
  }
}
