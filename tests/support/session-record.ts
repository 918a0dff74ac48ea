import type { SessionRecord } from "../../lib/mcp/transport/session-store";

/** A 2025-11-25 session record as initialize stores it, alive for a minute: for the session stores' own tests. */
export function sessionRecord(id: string, caller = "ip:test"): SessionRecord {
  return {
    id,
    caller,
    protocolVersion: "2025-11-25",
    clientInfo: { name: "t", version: "1" },
    clientCapabilities: {},
    initialized: true,
    subject: undefined,
    logLevel: undefined,
    subscriptions: [],
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
  };
}
