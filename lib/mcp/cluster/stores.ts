import type { LoggingLevel } from "../protocol/types";

/**
 * The state the cluster keeps for the transport, as interfaces: in this process by default
 * (transport/session-store.ts, transport/stateless/request-state.ts), in Redis when scaled out
 * (lib/cluster). They sit here, below the transport, so both sides import them downhill.
 */

/** One 2025-era session (basic/transports §session management). */
export interface SessionRecord {
  id: string;
  /** Whose budget created it (rate-limit.ts callerKey): sessions are capped per caller. */
  caller: string;
  protocolVersion: string;
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
  /**
   * Whether the client has sent notifications/initialized: until then it is asked nothing
   * (basic/lifecycle §initialization). False from initialize on; a record written before this
   * was kept has none, and is taken as initialized.
   */
  initialized?: boolean;
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
/** The fields of a session that change after it is created. */
export type SessionPatch = Partial<Pick<SessionRecord, "logLevel" | "subscriptions" | "expiresAt" | "initialized">>;

export interface SessionStore {
  /**
   * Keeps `record`. Returns the ids of the sessions it ended to make room (the caller's oldest, or
   * in a full process the largest holder's): their work must end too, as after a DELETE.
   */
  create(record: SessionRecord): Promise<readonly string[]>;
  /** May answer synchronously (in-process stores), saving a promise hop on every request. */
  get(id: string): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  /**
   * Changes a live session: `change` is the fields to set, or a function of the current record
   * giving them (undefined: nothing to change; it may throw to refuse). Atomic per session:
   * concurrent changes all land, each function seeing the others' results, and a session deleted
   * or expired meanwhile stays gone.
   */
  update(id: string, change: SessionPatch | ((current: SessionRecord) => SessionPatch | undefined)): Promise<void>;
  /** Returns false when there was no such session. */
  delete(id: string): Promise<boolean>;
}

/** Remembers spent nonces until they expire. In-process by default; shared when scaled out. */
export interface SpentStateStore {
  /** Record a nonce; false when it was already spent. */
  spend(nonce: string, expiresAt: number): boolean | Promise<boolean>;
}
