import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify } from "jose";
import { publishedJwks, storedKeyRows } from "./published-keys";

/**
 * A JWT presented for revocation or introspection that cannot be an active access token of this
 * server: expired, or signed by none of its keys (an unknown kid, a bad signature, alg none), or
 * naming another issuer. @better-auth/oauth-provider 1.7.5 sorts jose's errors by `name`, which
 * jose takes from its class names; the production build's minifier renames those classes, so an
 * expired token fell through to an empty 500, and a bad signature did so even unminified. RFC 7009
 * §2.2 answers such a token 200 and RFC 7662 §2.2 `{"active": false}`: request-hooks.ts hands
 * better-auth NOT_HELD_TOKEN in its place, which it authenticates the client for and then answers
 * as every token it does not hold.
 */

/** A token value better-auth holds under no kind: not a JWT, and no stored token hashes from it. */
export const NOT_HELD_TOKEN = "not-held";

/**
 * Whether `token` is a JWT that jose refuses against this server's published keys and issuer.
 * Anything that is not a JWT (a refresh token) is better-auth's to look up; a key store that
 * cannot be read throws, as it does for better-auth: a server failure stays one.
 */
export async function isInactiveJwt(token: unknown, issuer: string, keysDir: string | undefined): Promise<boolean> {
  if (typeof token !== "string") return false;
  try {
    decodeProtectedHeader(token);
  } catch {
    return false;
  }
  const keys = createLocalJWKSet(publishedJwks(await storedKeyRows(keysDir)));
  try {
    await jwtVerify(token, keys, { issuer });
    return false;
  } catch (thrown) {
    return thrown instanceof errors.JOSEError;
  }
}
