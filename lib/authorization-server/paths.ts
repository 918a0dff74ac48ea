/**
 * Where the built-in authorization server lives in this app: better-auth's endpoints under one
 * base path, and the server-rendered pages a person sees while linking an account.
 */
export const AUTH_BASE_PATH = "/api/auth";

/** The OAuth endpoints' full paths, as a request to them reads (RFC 6749, 7009, 7591, 7662). */
export const OAuthEndpoint = {
  Authorization: `${AUTH_BASE_PATH}/oauth2/authorize`,
  Token: `${AUTH_BASE_PATH}/oauth2/token`,
  Revocation: `${AUTH_BASE_PATH}/oauth2/revoke`,
  Registration: `${AUTH_BASE_PATH}/oauth2/register`,
  Introspection: `${AUTH_BASE_PATH}/oauth2/introspect`,
} as const;

export const AuthPage = {
  SignIn: "/auth/sign-in",
  SignUp: "/auth/sign-up",
  Consent: "/auth/consent",
  SignedOut: "/auth/signed-out",
  Error: "/auth/error",
} as const;

/**
 * The query parameter (and form field) naming the page of this app a person returns to after
 * signing in outside an authorization flow (a record's page sent them): a path on our own origin only.
 */
export const RETURN_TO = "returnTo";

/** `value` as a path on this origin to return to, or undefined when it is anything else (an open redirect). */
export function safeReturnPath(value: string | undefined): string | undefined {
  if (!value || value.length > 512 || !value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return undefined;
  return /^[\x21-\x7e]+$/.test(value) ? value : undefined;
}

/** The form handlers behind the pages (app/auth/submit/[action]): one per form. */
export const AuthFormAction = {
  SignIn: "/auth/submit/sign-in",
  SignUp: "/auth/submit/sign-up",
  Social: "/auth/submit/social",
  Consent: "/auth/submit/consent",
  SignOut: "/auth/submit/sign-out",
} as const;

/**
 * The header better-auth reads the client's address from (its per-address limits). The routes set
 * it on every request from the trusted source (lib/http/client-address.ts) and overwrite any a
 * client sent, so a made-up X-Forwarded-For never picks a fresh budget.
 */
export const CLIENT_ADDRESS_HEADER = "x-worldcrafter-client-address";

/** Asked for on every authorization: without it no refresh token is issued (OAuth 2.1 §4.3). */
export const OFFLINE_ACCESS = "offline_access";
