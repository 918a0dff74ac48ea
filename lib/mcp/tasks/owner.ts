import type { AuthInfo } from "../../auth/auth-info";
import { addressIdentity } from "../../http/address-identity.mjs";

/**
 * Whose task it is: the token's subject, or for an anonymous caller the same identity the rate
 * limiter counts it under (its trusted client address, an IPv6 one by its /64: policy/rate-limit.ts
 * callerKey, http/address-identity.mjs). One anonymous client's tasks neither count against
 * another's limits nor are readable by it, and rotating addresses inside its /64 gains nothing.
 *
 * The two kinds live in separate namespaces (`subject:` / `anonymous:`): a subject is whatever
 * string the issuer chose, and one that read `anonymous:10.0.0.1` must not see that address's
 * tasks in mixed mode.
 *
 * And every endpoint has its own (`endpoint`: its server name, encoded so it holds no `/`): two
 * apps built on the core in one deployment share the task table, and a token one of them issued
 * read and cancelled the other's tasks, whose tools it did not know (outside probe, 2026-11-29).
 */
export function taskOwnerOf(auth: AuthInfo | undefined, clientAddress: string, endpoint: string): string {
  const who = auth ? `subject:${auth.subject}` : `anonymous:${addressIdentity(clientAddress)}`;
  return `${encodeURIComponent(endpoint)}/${who}`;
}
