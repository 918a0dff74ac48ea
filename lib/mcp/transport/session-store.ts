import { randomUUID } from "node:crypto";
import type { SessionPatch, SessionRecord, SessionStore } from "../cluster/stores";

// The record and store interfaces live with the cluster's other stores (lib/mcp/cluster/stores.ts),
// below the transport; the in-process store is here.
export type { SessionRecord, SessionStore } from "../cluster/stores";

/** A session id from a CSPRNG, visible ASCII only as the transport requires. */
export function mintSessionId(): string {
  return randomUUID();
}

/**
 * In-process sessions with idle expiry, a bound per caller and a bound on how many are kept. A
 * caller at its bound loses its own oldest session. A full process ends the oldest session of the
 * caller holding the most: refusing every new session instead let some 200 callers (one IPv6 /56)
 * at their bound shut every other client out for a day (outside audit), while a client whose
 * session ends is told 404 and starts another (basic/transports §session management). A caller
 * with a session or two is not evicted while anyone holds more.
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** Each caller's session ids, oldest first. */
  private readonly byCaller = new Map<string, Set<string>>();

  constructor(
    private readonly maxSessions = 10_000,
    private readonly maxPerCaller = 50,
  ) {}

  async create(record: SessionRecord): Promise<readonly string[]> {
    const ended: string[] = [];
    const own = this.byCaller.get(record.caller) ?? new Set<string>();
    for (const id of own) {
      if (own.size < this.maxPerCaller) break;
      if (this.forget(id)) ended.push(id);
    }
    if (this.sessions.size >= this.maxSessions) this.dropExpired(ended);
    if (this.sessions.size >= this.maxSessions) this.evictFromLargestHolder(ended);
    this.sessions.set(record.id, record);
    own.add(record.id);
    this.byCaller.set(record.caller, own);
    return ended;
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

  async update(id: string, change: SessionPatch | ((current: SessionRecord) => SessionPatch | undefined)): Promise<void> {
    // Read and written in one synchronous step: atomic in this process.
    const record = this.get(id);
    if (!record) return;
    const patch = typeof change === "function" ? change(record) : change;
    if (patch) this.sessions.set(id, { ...record, ...patch });
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

  /** Ends the oldest session of the caller with the most (the first such caller on a tie). */
  private evictFromLargestHolder(ended: string[]): void {
    let largest: Set<string> | undefined;
    for (const own of this.byCaller.values()) if (!largest || own.size > largest.size) largest = own;
    const oldest = largest?.values().next();
    if (oldest && !oldest.done && this.forget(oldest.value)) ended.push(oldest.value);
  }

  private dropExpired(ended: string[]): void {
    const now = Date.now();
    for (const [id, record] of this.sessions) if (record.expiresAt <= now && this.forget(id)) ended.push(id);
  }
}
