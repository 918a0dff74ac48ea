import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { AuthInfo } from "./auth-info";
import { isPlainText } from "../text/plain-text";

/**
 * Bearer JWT verification with jose (OAuth 2.1 §5.2; basic/authorization §token handling):
 * signature by the authorization server's keys, issuer, audience = this resource (RFC 8707),
 * an algorithm allow-list, exp and sub required, bounded age. jose leaves three holes that are
 * closed here: a token without `kid` would match a JWKS of one key; a token whose `iat` lies in
 * the future would pass without `nbf`; and an unknown `kid` is refetched at most once per cooldown
 * (that is jose's DoS guard, kept — the cooldown is configurable).
 */

export interface VerifierOptions {
  issuer: string;
  audience: string;
  /** Asymmetric algorithms accepted from the JWKS. */
  algorithms: readonly string[];
  /**
   * remote: a JWKS URL, fetched and cached by jose. local: keys this process can read itself (the
   * built-in authorization server's), reloaded when a token names a key not yet seen, at most
   * once per cooldown, so a rotated-in key is picked up and a flood of made-up kids is not.
   */
  keys: { kind: "remote"; jwksUrl: () => Promise<URL> | URL; cooldownMs: number; cacheMaxAgeMs: number; timeoutMs: number } | { kind: "local"; jwks: () => Promise<JSONWebKeySet>; cooldownMs: number };
  /** Supabase-style shared secret: HS256 tokens are verified with it (and need no kid). */
  hs256Secret?: string;
  clockToleranceSeconds: number;
  maxTokenAgeSeconds: number;
  /** Scopes for a valid token with no scope claim at all. */
  implicitScopes: readonly string[];
  /** Adds implied scopes (the app's catalog). */
  expandScopes: (scopes: readonly string[]) => string[];
  /** How long one token's verification is reused (bounded further by its exp). */
  cacheMs: number;
  /**
   * Require the `typ` header of RFC 9068 (`at+jwt`). On for the built-in server, whose access
   * tokens carry it and whose other JWTs (better-auth's session token) do not: without it a
   * session JWT that happened to name this audience would pass as an access token. External
   * issuers often send `JWT` or nothing, so for them any JWT typ is accepted.
   */
  requireAccessTokenType?: boolean;
}

/** The token is not acceptable; `reason` is safe to send (it never quotes the token or its claims). */
export class TokenRejected extends Error {
  override readonly name = "TokenRejected";
}

/** Keys could not be fetched: not the caller's fault, so not a 401. */
export class VerifierUnavailable extends Error {
  override readonly name = "VerifierUnavailable";
}

export interface JwtVerifier {
  verify(token: string): Promise<AuthInfo>;
}

const MAX_CACHED = 1_000;

function scopesOf(payload: JWTPayload, implicit: readonly string[]): string[] | undefined {
  const found: string[] = [];
  let claimed = false;
  for (const claim of ["scope", "scp", "permissions"] as const) {
    const value = payload[claim];
    if (typeof value === "string") {
      claimed = true;
      found.push(...value.split(" ").filter(Boolean));
    } else if (Array.isArray(value)) {
      claimed = true;
      found.push(...value.filter((v): v is string => typeof v === "string"));
    }
  }
  return claimed ? found : [...implicit];
}

function clientIdOf(payload: JWTPayload): string | undefined {
  for (const claim of ["client_id", "azp", "cid"] as const) {
    const value = payload[claim];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

/**
 * jose's failures in words a client may see (no claim values of the token's): its
 * error_description. `issuer`: the one this resource accepts, public metadata.
 */
function describe(thrown: unknown, issuer: string): string {
  if (thrown instanceof errors.JWTExpired) return "the token has expired";
  if (thrown instanceof errors.JWTClaimValidationFailed) {
    if (thrown.claim === "aud") return "the token is not for this resource (audience)";
    // Named: a token minted for another origin (npm run token without this server's
    // MCP_RESOURCE_URL, a port changed) is the usual cause, and the issuer is no secret (RFC 8414).
    if (thrown.claim === "iss") return `the token is from an unexpected issuer (this server accepts ${issuer})`;
    if (thrown.claim === "nbf") return "the token is not valid yet";
    if (thrown.claim === "iat") return "the token's issue time is not acceptable";
    return `the token's ${thrown.claim} claim is missing or invalid`;
  }
  if (thrown instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (thrown instanceof errors.JWKSNoMatchingKey) return "the token's signing key is unknown";
  if (thrown instanceof errors.JWSSignatureVerificationFailed) return "the token's signature is invalid";
  return "the token is malformed";
}

/**
 * A remote key set whose failures are sorted at the source: the token naming a key the set does
 * not have is the token's problem (401); the key server failing — unreachable, slow, not 200,
 * not a JWKS — is not, and must never turn valid tokens into 401s (503 instead).
 */
function classifyFetchFailures(remote: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (thrown) {
      if (thrown instanceof errors.JWKSNoMatchingKey || thrown instanceof errors.JWKSMultipleMatchingKeys || thrown instanceof errors.JOSEAlgNotAllowed) throw thrown;
      throw new VerifierUnavailable(`the authorization server's keys could not be fetched (${thrown instanceof Error ? thrown.message : String(thrown)})`);
    }
  };
}

/** A local key set that is read again when a token names an unknown key (see VerifierOptions.keys). */
function reloadingLocalKeySet(load: () => Promise<JSONWebKeySet>, cooldownMs: number): JWTVerifyGetKey {
  let current: { getKey: JWTVerifyGetKey; loadedAt: number } | undefined;
  let loading: Promise<{ getKey: JWTVerifyGetKey; loadedAt: number }> | undefined;
  const reload = () =>
    (loading ??= load()
      .then((jwks) => (current = { getKey: createLocalJWKSet(jwks), loadedAt: Date.now() }))
      .catch((thrown: unknown) => {
        throw new VerifierUnavailable(`the signing keys could not be read (${thrown instanceof Error ? thrown.message : String(thrown)})`);
      })
      .finally(() => {
        loading = undefined;
      }));
  return async (header, token) => {
    const set = current ?? (await reload());
    try {
      return await set.getKey(header, token);
    } catch (thrown) {
      if (!(thrown instanceof errors.JWKSNoMatchingKey) || Date.now() - set.loadedAt < cooldownMs) throw thrown;
      return (await reload()).getKey(header, token);
    }
  };
}

/** The JWKS, created on first use (jose caches keys and enforces the cooldown inside it). */
function lazyKeySet(source: VerifierOptions["keys"]): () => JWTVerifyGetKey | Promise<JWTVerifyGetKey> {
  let keySet: JWTVerifyGetKey | undefined;
  let keySetLoading: Promise<JWTVerifyGetKey> | undefined;
  return () => {
    if (keySet) return keySet;
    if (source.kind === "local") {
      keySet = reloadingLocalKeySet(source.jwks, source.cooldownMs);
      return keySet;
    }
    keySetLoading ??= Promise.resolve(source.jwksUrl()).then(
      (url) => (keySet = classifyFetchFailures(createRemoteJWKSet(url, {
        cooldownDuration: source.cooldownMs,
        cacheMaxAge: source.cacheMaxAgeMs,
        timeoutDuration: source.timeoutMs,
      }))),
      (thrown: unknown) => {
        keySetLoading = undefined;
        throw new VerifierUnavailable(`cannot find the authorization server's keys: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
      },
    );
    return keySetLoading;
  };
}

/** RFC 9068 §4: `at+jwt`, or its media type form. */
const ACCESS_TOKEN_TYPE = /^(application\/)?at\+jwt$/i;
/** Any JWT: `JWT`, `at+jwt`, or their media type forms. */
const ANY_JWT_TYPE = /^(application\/)?(at\+)?jwt$/i;

/** The caller a verified token names, after the checks jose leaves to us. */
function authInfoOf(payload: JWTPayload, token: string, options: VerifierOptions): AuthInfo {
  const now = Math.floor(Date.now() / 1000);
  // A token bound to a key (RFC 9449 DPoP: cnf.jkt; RFC 8705 mTLS: cnf.x5t#S256) is only good with
  // proof of that key, which a Bearer request never carries: accepting it would undo the binding.
  if (payload.cnf !== undefined) throw new TokenRejected("the token is bound to a key (cnf): this resource accepts Bearer tokens only");
  // jose accepts a future iat when there is no nbf; an access token cannot be issued later than now.
  if (typeof payload.iat !== "number" || payload.iat > now + options.clockToleranceSeconds) throw new TokenRejected("the token's issue time is in the future");
  // Plain text: the subject scopes every row its caller owns, and a NUL in it failed the caller's
  // queries as internal errors and lost the other callers' audit rows of its batch (outside probe, 2026-11-29).
  if (typeof payload.sub !== "string" || payload.sub.length === 0 || payload.sub.length > 256 || !isPlainText(payload.sub)) throw new TokenRejected("the token's subject is missing or invalid");
  const scopes = options.expandScopes(scopesOf(payload, options.implicitScopes) ?? []);
  const clientId = clientIdOf(payload);
  return { subject: payload.sub, scopes, token, ...(clientId ? { clientId } : {}), ...(typeof payload.exp === "number" ? { expiresAt: payload.exp } : {}) };
}

/** A JWS in compact serialization: header, payload and signature in unpadded base64url. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function createJwtVerifier(options: VerifierOptions): JwtVerifier {
  const asymmetric = options.algorithms.filter((a) => !a.startsWith("HS") && a !== "none");
  const keys = lazyKeySet(options.keys);
  const secret = options.hs256Secret ? new TextEncoder().encode(options.hs256Secret) : undefined;
  const cache = new Map<string, { auth: AuthInfo; until: number }>();

  async function verifyUncached(token: string): Promise<AuthInfo> {
    // RFC 7515 §7.1 and §2: three base64url parts, never padded. jose's decoder skips a trailing
    // "=", so a padded copy of a valid token verified too: one token, many spellings (outside audit).
    if (!COMPACT_JWS.test(token)) throw new TokenRejected("the token is malformed: a JWT is three base64url parts without padding");
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new TokenRejected("the token is malformed");
    }
    if (options.requireAccessTokenType ? !ACCESS_TOKEN_TYPE.test(header.typ ?? "") : header.typ !== undefined && !ANY_JWT_TYPE.test(header.typ)) {
      throw new TokenRejected("the token is not a JWT access token");
    }
    const shared = header.alg === "HS256" && secret !== undefined;
    // A kid names the key; without one jose would try a JWKS's only key, whichever it is.
    if (!shared && (typeof header.kid !== "string" || header.kid.length === 0)) throw new TokenRejected("the token has no key id (kid)");
    const common = {
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: options.clockToleranceSeconds,
      maxTokenAge: options.maxTokenAgeSeconds,
      requiredClaims: ["exp", "sub", "iat"],
    };
    let payload: JWTPayload;
    try {
      if (shared) {
        payload = (await jwtVerify(token, secret, { ...common, algorithms: ["HS256"] })).payload;
      } else {
        const getKey = keys();
        payload = (await jwtVerify(token, getKey instanceof Promise ? await getKey : getKey, { ...common, algorithms: asymmetric })).payload;
      }
    } catch (thrown) {
      if (thrown instanceof VerifierUnavailable) throw thrown;
      throw new TokenRejected(describe(thrown, options.issuer));
    }
    return authInfoOf(payload, token, options);
  }

  return {
    async verify(token) {
      // Keyed by the token itself: hashing it would cost more than the lookup saves, and the
      // token is in this process's memory for the request anyway (it is never logged).
      const hit = cache.get(token);
      const now = Date.now();
      if (hit && hit.until > now) return hit.auth;
      if (hit) cache.delete(token);
      const auth = await verifyUncached(token);
      const until = Math.min(now + options.cacheMs, (auth.expiresAt ?? 0) * 1000);
      if (until > now) {
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
        cache.set(token, { auth, until });
      }
      return auth;
    },
  };
}
