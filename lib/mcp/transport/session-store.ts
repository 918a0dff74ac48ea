import { randomUUID } from "node:crypto";
import { ErrorCode, McpError } from "../../jsonrpc";
import type { SessionRecord, SessionStore } from "../cluster/stores";

// The record and store interfaces live with the cluster's other stores (lib/mcp/cluster/stores.ts),
// below the transport; the in-process store is here.
export type { SessionRecord, SessionStore } from "../cluster/stores";

/** A session id from a CSPRNG, visible ASCII only as the transport requires. */
export function mintSessionId(): string {
  return randomUUID();
}

/** The process holds all the sessions it may: a new one waits until some expire or end. */
function storeFull(): McpError {
  return new McpError(ErrorCode.InternalError, "Too many sessions on this server; try again later", { retryAfter: 30 }, 503, { "Retry-After": "30" });
}

/**
 * In-process sessions with idle expiry, a bound per caller and a bound on how many are kept. A
 * caller at its bound loses its own oldest session; a full process refuses new sessions rather
 * than end anyone's (one caller's flood must never evict another's session).
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** Each caller's session ids, oldest first. */
  private readonly byCaller = new Map<string, Set<string>>();

  constructor(
    private readonly maxSessions = 10_000,
    private readonly maxPerCaller = 50,
  ) {}

  async create(record: SessionRecord): Promise<void> {
    const own = this.byCaller.get(record.caller) ?? new Set<string>();
    for (const id of own) {
      if (own.size < this.maxPerCaller) break;
      this.forget(id);
    }
    if (this.sessions.size >= this.maxSessions) this.dropExpired();
    if (this.sessions.size >= this.maxSessions) throw storeFull();
    this.sessions.set(record.id, record);
    own.add(record.id);
    this.byCaller.set(record.caller, own);
  }

  get(id: string): SessionRecord | undefined {
    const record = this.sessions.get(id);
    if (!record) return undefined;
    if (record.expiresAt <= Date.now()) {
      this.forget(id);
      return undefined;
    }
    return record;
  }

  async update(id: string, patch: Partial<Pick<SessionRecord, "logLevel" | "subscriptions" | "expiresAt" | "initialized">>): Promise<void> {
    const record = this.sessions.get(id);
    if (record) this.sessions.set(id, { ...record, ...patch });
  }

  async delete(id: string): Promise<boolean> {
    return this.forget(id);
  }

  private forget(id: string): boolean {
    const record = this.sessions.get(id);
    if (!record) return false;
    this.sessions.delete(id);
    const own = this.byCaller.get(record.caller);
    own?.delete(id);
    if (own?.size === 0) this.byCaller.delete(record.caller);
    return true;
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [id, record] of this.sessions) if (record.expiresAt <= now) this.forget(id);
  }
}
