import type { AuthInfo } from "../../auth/auth-info";

/**
 * Whose task it is: the token's subject, or for an anonymous caller the same identity the rate
 * limiter counts it under (its trusted client address, policy/rate-limit.ts callerKey). One
 * anonymous client's tasks neither count against another's limits nor are readable by it.
 */
export function taskOwnerOf(auth: AuthInfo | undefined, clientAddress: string): string {
  return auth ? auth.subject : `anonymous:${clientAddress}`;
}
