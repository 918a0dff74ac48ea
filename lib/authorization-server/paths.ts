/**
 * Where the built-in authorization server lives in this app: better-auth's endpoints under one
 * base path, and the server-rendered pages a person sees while linking an account.
 */
export const AUTH_BASE_PATH = "/api/auth";

export const AuthPage = {
  SignIn: "/auth/sign-in",
  SignUp: "/auth/sign-up",
  Consent: "/auth/consent",
  SignedOut: "/auth/signed-out",
  Error: "/auth/error",
} as const;

/** The form handlers behind the pages (app/auth/submit/[action]): one per form. */
export const AuthFormAction = {
  SignIn: "/auth/submit/sign-in",
  SignUp: "/auth/submit/sign-up",
  Social: "/auth/submit/social",
  Consent: "/auth/submit/consent",
  SignOut: "/auth/submit/sign-out",
} as const;

/** Asked for on every authorization: without it no refresh token is issued (OAuth 2.1 §4.3). */
export const OFFLINE_ACCESS = "offline_access";
