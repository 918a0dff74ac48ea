import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { signAccessToken } from "../../lib/authorization-server/key-file";
import { Scope } from "../../lib/worlds/scopes";

/**
 * Tokens for the test servers, signed with the built-in authorization server's keys (the keys
 * folder the global setup made, MCP_AUTH_KEYS_DIR): issuer = the server's origin, audience = its /api/mcp, as `npm run token`
 * makes them for a developer.
 */
export const ALL_SCOPES = [Scope.Read, Scope.Write] as const;

export async function tokenFor(serverUrl: string, subject: string, scopes: readonly string[] = ALL_SCOPES): Promise<string> {
  const origin = new URL(serverUrl).origin;
  return signAccessToken(inject("devIssuerDir"), { issuer: origin, audience: `${origin}/api/mcp`, subject, scopes });
}

/** A subject nobody else in the run uses: each suite's data is its own. */
export function newSubject(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
