/**
 * What authentication hands to the core about the caller. Filled by lib/auth (bearer JWTs);
 * `undefined` for anonymous requests.
 */
export interface AuthInfo {
  /** The token's `sub`: every row a user owns is scoped by it. */
  subject: string;
  clientId?: string;
  scopes: readonly string[];
  /** The raw bearer token, for calls onward to the issuer. Never logged. */
  token: string;
  /** Seconds since the epoch. */
  expiresAt?: number;
}
