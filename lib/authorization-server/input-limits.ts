/**
 * The built-in authorization server's input limits, each fact once: how large a request body its
 * routes read, and how long each text field of a registered client may be. better-auth bounds
 * neither: a registration with a 3 MiB client_name was stored, and its form posts were read to
 * the end whatever their size.
 */

/**
 * The largest body /api/auth/* and /auth/submit/* read (413 beyond, docs/edge.md). The largest
 * honest one is a registration with a few redirect URIs, or an inline JWKS: a few kilobytes.
 */
export const AUTH_MAX_BODY_BYTES = 64 * 1024;
import { cutText } from "../text/cut-text";
import { isPlainText } from "../text/plain-text";

/** RFC 7591 §3.2.2: the error for a bad redirect URI, and for any other bad metadata field. */
type RegistrationError = "invalid_redirect_uri" | "invalid_client_metadata";

/** Characters per text field of a registration (RFC 7591 §2); the longest honest values are URLs. */
const TEXT_LIMITS: Readonly<Record<string, number>> = {
  client_name: 200,
  software_id: 200,
  software_version: 100,
  scope: 1000,
  client_uri: 2048,
  logo_uri: 2048,
  tos_uri: 2048,
  policy_uri: 2048,
  jwks_uri: 2048,
  backchannel_logout_uri: 2048,
  token_endpoint_auth_method: 100,
  application_type: 100,
  subject_type: 100,
  software_statement: 8192,
};

/** Entries per list field of a registration, and characters per entry. */
const LIST_LIMITS: Readonly<Record<string, { entries: number; characters: number; error: RegistrationError }>> = {
  redirect_uris: { entries: 10, characters: 2048, error: "invalid_redirect_uri" },
  post_logout_redirect_uris: { entries: 10, characters: 2048, error: "invalid_redirect_uri" },
  contacts: { entries: 10, characters: 320, error: "invalid_client_metadata" },
  grant_types: { entries: 10, characters: 100, error: "invalid_client_metadata" },
  response_types: { entries: 10, characters: 100, error: "invalid_client_metadata" },
  resources: { entries: 10, characters: 2048, error: "invalid_client_metadata" },
};

/**
 * Metadata fields that name a page or image a person may be shown (RFC 7591 §2: "a URL string of a
 * web page" / "that references a logo"). Stored as given, they would be a `javascript:` link the
 * day a page renders one. No page reads them today, so one that is not https is dropped rather
 * than the registration refused over it (RFC 7591 §2: the server may ignore a value it does not take).
 */
export const WEB_PAGE_FIELDS = ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const;

/** `value` as an https URL, or undefined when it is none. */
export function httpsUrlOf(value: unknown): URL | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

export function isWebPage(value: unknown): boolean {
  return httpsUrlOf(value) !== undefined;
}

export interface RegistrationProblem {
  error: RegistrationError;
  error_description: string;
}

/**
 * The first field of a registration request over its limit, as the RFC 7591 §3.2.2 error to
 * answer; undefined when every field is within bounds. Fields of the wrong type are left to
 * better-auth's own validation.
 */
export function registrationProblem(body: Readonly<Record<string, unknown>>): RegistrationProblem | undefined {
  for (const [field, limit] of Object.entries(TEXT_LIMITS)) {
    const value = body[field];
    if (typeof value === "string" && value.length > limit) return { error: "invalid_client_metadata", error_description: `${field} is longer than ${limit} characters` };
  }
  for (const [field, limit] of Object.entries(LIST_LIMITS)) {
    const value = body[field];
    if (!Array.isArray(value)) continue;
    if (value.length > limit.entries) return { error: limit.error, error_description: `${field} has more than ${limit.entries} entries` };
    if (value.some((entry) => typeof entry === "string" && entry.length > limit.characters)) {
      return { error: limit.error, error_description: `an entry of ${field} is longer than ${limit.characters} characters` };
    }
  }
  return undefined;
}

/** Arrays and objects a parameter's value may nest: more than any honest registration needs (jwks: keys → key → x5c). */
const MAX_PARAMETER_DEPTH = 16;

/** What is wrong with a parameter, as an error message words it after the parameter's name. */
const UNPLAIN = {
  text: "contains a control character or an unpaired surrogate",
  depth: `is nested deeper than ${MAX_PARAMETER_DEPTH} levels`,
} as const;

/**
 * Why `value` is not plain text throughout (every string in it, object keys too, at any depth);
 * undefined when it is. `depth`: the arrays and objects around `value`.
 */
function unplainThroughout(value: unknown, depth: number): string | undefined {
  if (typeof value === "string") return isPlainText(value) ? undefined : UNPLAIN.text;
  if (typeof value !== "object" || value === null) return undefined;
  // Refused rather than walked on: its strings are never looked at, so that is not what is said.
  if (depth >= MAX_PARAMETER_DEPTH) return UNPLAIN.depth;
  const entries: Iterable<[string | undefined, unknown]> = Array.isArray(value) ? value.map((entry) => [undefined, entry]) : Object.entries(value);
  for (const [key, entry] of entries) {
    if (key !== undefined && !isPlainText(key)) return UNPLAIN.text;
    const problem = unplainThroughout(entry, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A parameter that may not be stored or shown as given: its name (bounded and stripped, for an error message) and what is wrong with it. */
export interface UnplainParameter {
  name: string;
  problem: string;
}

/**
 * The first parameter of `parameters` (a request's query or body) that is not plain text, anywhere
 * inside it, or nests deeper than MAX_PARAMETER_DEPTH; undefined when all are plain.
 */
export function unplainParameter(parameters: Readonly<Record<string, unknown>>): UnplainParameter | undefined {
  for (const [name, value] of Object.entries(parameters)) {
    if (!isPlainText(name)) return { name: "a parameter name", problem: UNPLAIN.text };
    const problem = unplainThroughout(value, 0);
    if (problem !== undefined) return { name: cutText(name, 64), problem };
  }
  return undefined;
}

/**
 * The sign-up form's fields (app/auth/sign-up), bounded alike whether the form or a script posts
 * them: better-auth stores any length. An address is at most 254 characters, its local part 64
 * (RFC 5321 §4.5.3.1.1, with RFC 3696 erratum 1690).
 */
export const SIGN_UP_LIMITS = { name: 100, email: 254, emailLocalPart: 64 } as const;

/** Why a sign-up's name or address is over its bound; undefined when both are within. */
export function signUpProblem(body: Readonly<Record<string, unknown>>): string | undefined {
  const { name, email } = body;
  if (typeof name === "string" && name.length > SIGN_UP_LIMITS.name) return `name is longer than ${SIGN_UP_LIMITS.name} characters`;
  if (typeof email !== "string") return undefined;
  if (email.length > SIGN_UP_LIMITS.email) return `the e-mail address is longer than ${SIGN_UP_LIMITS.email} characters`;
  const at = email.lastIndexOf("@");
  if (at > SIGN_UP_LIMITS.emailLocalPart) return `the part of the e-mail address before @ is longer than ${SIGN_UP_LIMITS.emailLocalPart} characters`;
  return undefined;
}

/** 43 to 128 unreserved characters: RFC 7636's form of a code_verifier (§4.1) and of a code_challenge (§4.2). */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.2: a code_challenge is 43 to 128 unreserved characters (base64url of SHA-256 is 43). */
export function isCodeChallenge(value: unknown): boolean {
  return typeof value === "string" && PKCE_VALUE.test(value);
}

/** RFC 7636 §4.1: a code_verifier is 43 to 128 unreserved characters. */
export function isCodeVerifier(value: unknown): boolean {
  return typeof value === "string" && PKCE_VALUE.test(value);
}
