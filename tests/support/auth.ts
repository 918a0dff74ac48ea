import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { loadDevKey, signDevToken } from "../../lib/auth/dev-issuer";
import { Scope } from "../../lib/worlds/scopes";

/**
 * Tokens for the test servers, signed by the development issuer they trust (the key folder the
 * global setup made): issuer = the server's origin, audience = its /api/mcp, as `npm run token`
 * makes them for a developer.
 */
export const ALL_SCOPES = [Scope.Read, Scope.Write] as const;

export async function tokenFor(serverUrl: string, subject: string, scopes: readonly string[] = ALL_SCOPES): Promise<string> {
  const origin = new URL(serverUrl).origin;
  const key = await loadDevKey(inject("devIssuerDir"));
  return signDevToken(key, { issuer: origin, audience: `${origin}/api/mcp`, subject, scopes });
}

/** A subject nobody else in the run uses: each suite's data is its own. */
export function newSubject(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
