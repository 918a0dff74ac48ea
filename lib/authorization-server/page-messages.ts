/**
 * What the authorization pages say about an error, in our own words only. The `error` a page gets
 * in its query is a code (from our forms, or better-auth's errorURL); anyone can put any text in
 * a link to the issuer's pages, so free text is never shown (content spoofing: "call this number",
 * "your account is locked"). An unknown code gets the generic message.
 */

/** The code for "sign in to go on" (OpenID Connect Core §3.1.2.6 names it so): a consent posted without a session (form-flow.ts). */
export const SIGN_IN_FIRST = "login_required";

/** Codes the forms send back to their page (form-flow.ts): better-auth's own `code`s and ours. */
const FORM_MESSAGES: Readonly<Record<string, string>> = {
  [SIGN_IN_FIRST]: "You need to sign in to continue.",
  INVALID_EMAIL_OR_PASSWORD: "That e-mail address and password do not match an account.",
  INVALID_EMAIL: "That is not an e-mail address.",
  INVALID_PASSWORD: "That password is not right.",
  PASSWORD_TOO_SHORT: "The password is too short: use at least 8 characters.",
  PASSWORD_TOO_LONG: "The password is too long: use at most 128 characters.",
  USER_ALREADY_EXISTS: "There is already an account with that e-mail address: sign in instead.",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "There is already an account with that e-mail address: sign in instead.",
  SIGN_UP_CLOSED: "New accounts are closed on this server: sign in with an existing account.",
  SIGN_UP_DOMAIN: "Accounts can be created only for the e-mail domains this server allows.",
  FIELD_TOO_LONG: "A field is too long: use a shorter name or e-mail address.",
  INVALID_REQUEST: "Something in the form could not be read: check what you entered and try again.",
  TOO_MANY_ATTEMPTS: "Too many sign-in attempts for this account: wait a few minutes and try again.",
  TOO_MANY_REQUESTS: "Too many attempts: wait a few minutes and try again.",
  PROVIDER_NOT_FOUND: "That sign-in provider is not available here.",
  CROSS_SITE_FORM: "This form was sent from another site.",
  access_denied: "Access was not allowed.",
};

/** OAuth error codes (RFC 6749 §4.1.2.1, §5.2) and better-auth's, as the error page words them. */
const FLOW_MESSAGES: Readonly<Record<string, string>> = {
  invalid_client: "The application is not registered with this server (unknown client_id).",
  client_disabled: "The application has been disabled on this server.",
  unauthorized_client: "The application may not sign in this way.",
  invalid_redirect: "The application asked to send the answer to an address it did not register.",
  invalid_request: "The application's request could not be read.",
  unsupported_response_type: "The application asked for a kind of answer this server does not give.",
  invalid_scope: "The application asked for access this server does not offer.",
  invalid_target: "The application asked for access to a service this server does not cover.",
  access_denied: "Access was not allowed.",
  consent_required: "Your consent is needed to continue.",
  server_error: "Something went wrong on this server.",
  temporarily_unavailable: "This server is busy: try again in a moment.",
  state_mismatch: "The sign-in took too long or was started elsewhere.",
  please_restart_the_process: "The sign-in took too long or was started elsewhere.",
  invalid_signature: "This page was open too long and has expired: go back to the app and connect again.",
  ...FORM_MESSAGES,
};

const GENERIC = "That did not work: check what you entered and try again.";
const GENERIC_FLOW = "The sign-in could not continue.";

/** The message for a form's error code; undefined when there is no error to show. */
export function formMessage(code: string | undefined): string | undefined {
  if (!code) return undefined;
  return Object.hasOwn(FORM_MESSAGES, code) ? FORM_MESSAGES[code] : GENERIC;
}

/** The error page's message for `code`; the generic one for a code it does not know. */
export function flowMessage(code: string | undefined): string {
  return code && Object.hasOwn(FLOW_MESSAGES, code) ? (FLOW_MESSAGES[code] ?? GENERIC_FLOW) : GENERIC_FLOW;
}

/** The code a failed form answer carries back to its page: better-auth's `code`, or the OAuth `error`. */
export function formErrorCode(answer: unknown, status: number): string {
  if (typeof answer === "object" && answer !== null) {
    const { code, error } = answer as { code?: unknown; error?: unknown };
    for (const candidate of [code, error]) if (typeof candidate === "string" && /^[A-Za-z_]{1,64}$/.test(candidate)) return candidate;
  }
  return status === 429 ? "TOO_MANY_REQUESTS" : "FAILED";
}
