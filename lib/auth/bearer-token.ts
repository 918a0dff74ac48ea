/**
 * The bearer token of a request (RFC 6750 §2.1: the Authorization header, and only there —
 * basic/authorization §token handling forbids tokens in the query string, so one there is
 * refused rather than ignored).
 */
export type BearerCredentials =
  | { kind: "none" }
  | { kind: "token"; token: string }
  | { kind: "malformed"; reason: string };

/** Longer tokens are refused unread: a JWT of this size is an attack, not a credential. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const QUERY_TOKEN_PARAMS = ["access_token", "token", "id_token"];

/** No credentials: the answer for most requests of an open deployment, shared. */
const NONE: BearerCredentials = Object.freeze({ kind: "none" });

export function readBearer(request: Request): BearerCredentials {
  // Parse the URL only when it has a query at all (most requests have none).
  const query = request.url.includes("?") ? new URL(request.url).searchParams : undefined;
  if (query && QUERY_TOKEN_PARAMS.some((p) => query.has(p))) {
    return { kind: "malformed", reason: "access tokens are accepted only in the Authorization header, never in the query string" };
  }
  const header = request.headers.get("authorization");
  if (header === null) return NONE;
  // Another scheme (Basic, Digest, DPoP…) is not a credential this server reads: the request is
  // anonymous, and a refusal says only how to authenticate (RFC 6750 §3.1: no error code). Two
  // headers reach us joined with ", " (Fetch Headers; lib/http/trusted-host.mjs under npm start):
  // a Bearer anywhere in the list makes the whole value one malformed credential, never a part.
  if (!/(^|,)\s*bearer(\s|$)/i.test(header)) return NONE;
  const match = BEARER.exec(header.trim());
  if (!match) return { kind: "malformed", reason: "the Authorization header must be exactly `Bearer <token>`" };
  const token = match[1] as string;
  if (token.length > MAX_TOKEN_LENGTH) return { kind: "malformed", reason: "the bearer token is too large" };
  return { kind: "token", token };
}
