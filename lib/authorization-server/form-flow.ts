import { isPlainText } from "../text/plain-text";
import { formErrorCode, SIGN_IN_FIRST } from "./page-messages";
import { AUTH_BASE_PATH, AuthPage, CLIENT_ADDRESS_HEADER, RETURN_TO, safeReturnPath } from "./paths";
import type { AuthServer } from "./auth-server";

/**
 * The pages' forms, posted to app/auth/submit/[action], become better-auth API calls here: the
 * browser's own cookies and Origin go along (better-auth checks the Origin of every cookie-bearing
 * POST), and the JSON answer becomes a 303 to where the flow continues (the consent page, the
 * client's redirect URI with its code, a provider's sign-in) or back to the form with the reason.
 * The pages thus work without JavaScript, and no URL a form carries is ever redirected to: only
 * what better-auth answers, which is a registered redirect URI or one of our pages.
 */

/** The page a failed form goes back to, and the better-auth endpoint each form calls. */
const ROUTES = {
  "sign-in": { endpoint: "/sign-in/email", page: AuthPage.SignIn },
  "sign-up": { endpoint: "/sign-up/email", page: AuthPage.SignUp },
  social: { endpoint: "/sign-in/social", page: AuthPage.SignIn },
  consent: { endpoint: "/oauth2/consent", page: AuthPage.Consent },
  "sign-out": { endpoint: "/sign-out", page: AuthPage.SignedOut },
} as const satisfies Record<string, { endpoint: string; page: string }>;

export type FormAction = keyof typeof ROUTES;

export function isFormAction(value: string): value is FormAction {
  return Object.hasOwn(ROUTES, value);
}

const MAX_FIELD = 4096;

function field(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" && value.length <= MAX_FIELD ? value : undefined;
}

/** The signed authorization query the page received, given back unchanged (better-auth checks its signature). */
function oauthQuery(form: FormData): string | undefined {
  const query = field(form, "oauth_query");
  return query ? query.replace(/^\?/, "") : undefined;
}

function bodyFor(action: FormAction, form: FormData): Record<string, unknown> {
  const query = oauthQuery(form);
  const withQuery = query ? { oauth_query: query } : {};
  switch (action) {
    case "sign-in":
      return { email: field(form, "email") ?? "", password: field(form, "password") ?? "", ...withQuery };
    case "sign-up": {
      const email = field(form, "email") ?? "";
      return { name: field(form, "name") || email.split("@")[0] || "WorldCrafter user", email, password: field(form, "password") ?? "", ...withQuery };
    }
    case "social":
      return { provider: field(form, "provider") ?? "", callbackURL: "/", errorCallbackURL: AuthPage.Error, ...withQuery };
    case "consent":
      return { accept: field(form, "decision") === "allow", ...withQuery };
    case "sign-out":
      return {};
  }
}

function seeOther(location: string, setCookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of setCookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * better-auth's answer when the signed authorization request a page carries no longer verifies:
 * it expired (codeExpiresIn, 10 minutes) or was altered. The same page would carry the same
 * query back and fail again forever, so the person is sent to the error page, which says to
 * start again from the app (outside audit, 2026-11-27).
 */
const STALE_REQUEST = "invalid_signature";

/** better-auth's code for a form whose endpoint needs a session (consent) posted without one. */
const NO_SESSION = "UNAUTHORIZED";

/**
 * Where a failed form goes with its error code: its own page, or, for a consent posted without a
 * session (signed out in another tab, the link opened in another browser), the sign-in page: back
 * on the consent page Allow would fail again until the signed request expired, and once signed in
 * better-auth carries that request on to consent (the consent page sends a visitor without a
 * session there too).
 */
function failedFormPage(action: FormAction, code: string): { page: string; code: string } {
  if (action === "consent" && code === NO_SESSION) return { page: AuthPage.SignIn, code: SIGN_IN_FIRST };
  return { page: ROUTES[action].page, code };
}

/** Back to the form's page (failedFormPage) with the error's code (the page words it, page-messages.ts) and the flow's query kept (minus our own parameters). */
function backToForm(origin: string, action: FormAction, form: FormData, failure: string): Response {
  if (failure === STALE_REQUEST) return seeOther(new URL(`${AuthPage.Error}?error=${STALE_REQUEST}`, origin).toString());
  const { page, code } = failedFormPage(action, failure);
  const target = new URL(page, origin);
  const query = oauthQuery(form);
  if (query) for (const [k, v] of new URLSearchParams(query)) target.searchParams.append(k, v);
  target.searchParams.set("error", code);
  const email = field(form, "email");
  if (email && isPlainText(email) && action !== "consent") target.searchParams.set("email", email.slice(0, 254));
  const back = safeReturnPath(field(form, RETURN_TO));
  if (back) target.searchParams.set(RETURN_TO, back);
  return seeOther(target.toString());
}

/** Where a better-auth answer says to go next, only ever on our origin or what it chose (a registered redirect URI, a provider). */
function nextLocation(origin: string, answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const url = (answer as { url?: unknown }).url;
  return typeof url === "string" && url.length > 0 ? new URL(url, origin).toString() : undefined;
}

export interface FormRequest {
  action: FormAction;
  request: Request;
  /** The client's address from a trusted source (the routes' business), for better-auth's limits. */
  clientAddress: string;
  /** The issuer's origin: forms are accepted from it only (CSRF), and relative answers resolve on it. */
  origin: string;
}

/** Handles one posted form; the answer is always a 303 (never JSON, never a 500 for bad input). */
export async function submitForm(auth: AuthServer, { action, request, origin, clientAddress }: FormRequest): Promise<Response> {
  // CSRF: a form is accepted only from our own pages. Browsers send Origin on every POST.
  if (request.headers.get("origin") !== origin) {
    return seeOther(`${origin}${AuthPage.Error}?error=CROSS_SITE_FORM`);
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return seeOther(`${origin}${AuthPage.Error}?error=invalid_request`);
  }
  const headers = new Headers({ "content-type": "application/json", accept: "application/json", origin, [CLIENT_ADDRESS_HEADER]: clientAddress });
  for (const name of ["cookie", "user-agent"]) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  const inner = new Request(`${origin}${AUTH_BASE_PATH}${ROUTES[action].endpoint}`, { method: "POST", headers, body: JSON.stringify(bodyFor(action, form)) });
  const answer = await auth.handler(inner);
  const setCookies = answer.headers.getSetCookie();
  const text = await answer.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!answer.ok) return backToForm(origin, action, form, formErrorCode(json, answer.status));
  if (action === "sign-out") {
    // "Use another account" on the consent page: signed out, then to sign in with the same signed
    // request, which carries on to consent for the account signed in (outside probe, 2026-11-29:
    // the pages named no account and offered no way to change it).
    const query = oauthQuery(form);
    return seeOther(query ? `${origin}${AuthPage.SignIn}?${query}` : `${origin}${AuthPage.SignedOut}`, setCookies);
  }
  // Signed in outside an authorization flow: back to the page of ours that sent them (a record's
  // page), else the home page. Only a path on this origin is followed.
  const back = safeReturnPath(field(form, RETURN_TO));
  return seeOther(nextLocation(origin, json) ?? `${origin}${back ?? "/"}`, setCookies);
}
