import type { AuthEndpoint } from "./endpoint-table";
import { isCodeChallenge } from "./input-limits";
import { AUTH_BASE_PATH, AuthPage, OAuthEndpoint } from "./paths";
import { cutText } from "../text/cut-text";
import { foreignResources } from "./served-resource";

/**
 * better-auth's answers on the OAuth endpoints, made to say what the RFCs say where better-auth
 * (1.7.5) says something else. Each case is matched exactly; every other answer passes unchanged.
 */

const { Authorization: AUTHORIZATION_ENDPOINT, Token: TOKEN_ENDPOINT, Revocation: REVOCATION_ENDPOINT, Registration: REGISTRATION_ENDPOINT, Introspection: INTROSPECTION_ENDPOINT } = OAuthEndpoint;
const OAUTH_ENDPOINTS = `${AUTH_BASE_PATH}/oauth2/`;

/** The endpoints an RFC defines for POST alone, whose every error has the OAuth shape ({error, error_description}). */
const RFC_POST_ENDPOINTS: ReadonlySet<string> = new Set([TOKEN_ENDPOINT, REVOCATION_ENDPOINT, REGISTRATION_ENDPOINT, INTROSPECTION_ENDPOINT]);

/** 200 with no body: what every accepted revocation answers, whatever better-auth's body said. */
async function emptyOk(answer: Response): Promise<Response> {
  await answer.body?.cancel();
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  headers.delete("content-type");
  return new Response(null, { status: 200, headers });
}

/** What better-auth's revocation endpoint says about a token it does not hold (or holds revoked already). */
const UNKNOWN_TOKEN_DESCRIPTIONS: ReadonlySet<string> = new Set(["token not found", "refresh token revoked", "Invalid access token"]);

interface ErrorBody {
  code?: unknown;
  error?: unknown;
  error_description?: unknown;
  message?: unknown;
}

function oauthError(status: number, error: string, description: string, from: Headers, extra: Readonly<Record<string, string>> = {}): Response {
  const headers = new Headers(from);
  for (const name of ["content-length", "content-type", "x-retry-after"]) headers.delete(name);
  headers.set("content-type", "application/json");
  headers.set("cache-control", "no-store");
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers });
}

/** The seconds better-auth's 429 says to wait (its own X-Retry-After), 60 when it says none. */
function retryAfterSeconds(answer: Response): number {
  const seconds = Number(answer.headers.get("x-retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60;
}

/**
 * Over a rate limit (RFC 6585 §4: 429). Of the OAuth error codes, invalid_request is the one that
 * the token (RFC 6749 §5.2), revocation (RFC 7009 §2.2.1) and registration (RFC 7591 §3.2.2)
 * endpoints all define, so every client's error handling reads it; temporarily_unavailable exists
 * only for the authorization endpoint's redirect (RFC 6749 §4.1.2.1) and slow_down only for the
 * device flow's polling (RFC 8628 §3.5). Retry-After (RFC 9110 §10.2.3) says when to come back.
 */
function tooManyRequests(answer: Response): Response {
  const retryAfter = retryAfterSeconds(answer);
  return oauthError(429, "invalid_request", `too many requests from this address: retry after ${retryAfter} seconds`, answer.headers, { "retry-after": String(retryAfter) });
}

/**
 * Over the authorization endpoint's limit. Its requests come from a person's browser, so the
 * answer is the error page, as for the endpoint's other refusals, not a JSON text; and not the
 * client's redirect URI with temporarily_unavailable (RFC 6749 §4.1.2.1), which may be used only
 * once the client and its redirect URI check out, and the limit is counted before either is read.
 */
function authorizeBusy(answer: Response): Response {
  return errorPage("temporarily_unavailable", { "retry-after": String(retryAfterSeconds(answer)) });
}

/** A person's browser sent to our error page, which words `error` itself (page-messages.ts). */
function errorPage(error: string, extra: Readonly<Record<string, string>> = {}): Response {
  return new Response(null, { status: 302, headers: { location: `${AuthPage.Error}?error=${error}`, "cache-control": "no-store", ...extra } });
}

/**
 * better-call refuses a body of another media type with its own shape: the OAuth one instead,
 * naming what the endpoint reads (endpoint-table.ts): JSON for registration (RFC 7591 §3.1) and
 * consent, form encoding for token, revocation and introspection (RFC 6749 §3.2, RFC 7009 §2.1).
 */
function unsupportedMediaType(path: string, answer: Response, endpoint: AuthEndpoint | undefined): Response {
  const description = endpoint ? `the body must be ${endpoint.mediaTypes.join(" or ")}` : "the body's media type is not one this endpoint reads";
  return oauthError(415, path === REGISTRATION_ENDPOINT ? "invalid_client_metadata" : "invalid_request", description, answer.headers);
}

/**
 * A method `endpoint` does not take: 405 with its `Allow` (RFC 9110 §15.5.6), which lists the
 * same methods whatever was sent; the OAuth error shape at the OAuth endpoints, better-auth's own
 * ({message, code}) elsewhere.
 */
export function methodNotAllowed(path: string, endpoint: AuthEndpoint): Response {
  const description = `this endpoint takes ${endpoint.methods.join(" or ")} only`;
  const headers = new Headers({ allow: endpoint.allow });
  if (path.startsWith(OAUTH_ENDPOINTS)) return oauthError(405, "invalid_request", description, headers);
  headers.set("content-type", "application/json");
  headers.set("cache-control", "no-store");
  return new Response(JSON.stringify({ message: description, code: "METHOD_NOT_ALLOWED" }), { status: 405, headers });
}

/**
 * RFC 7662 §2.3: a client whose credentials fail at the introspection endpoint is answered 401
 * invalid_client as in RFC 6749 §5.2; better-auth answers 400 unless the client sent Basic
 * credentials (an unknown client_id, a wrong client_secret in the body). A 401 carries a
 * challenge (RFC 9110 §11.6.1): Basic, the scheme this endpoint reads besides the body (RFC 7617
 * §2 requires the realm).
 */
function introspectionClientRefused(answer: Response, description: string): Response {
  return oauthError(401, "invalid_client", description, answer.headers, { "www-authenticate": `Basic realm="${INTROSPECTION_ENDPOINT}"` });
}

/** An error answer's body, read from a clone; undefined when it is not a JSON object. */
export async function errorBody(answer: Response): Promise<ErrorBody | undefined> {
  try {
    const body: unknown = JSON.parse(await answer.clone().text());
    return typeof body === "object" && body !== null ? (body as ErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

const MALFORMED_CHALLENGE = "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.2)";

/** `location` with its error_description saying the code_challenge is malformed, when better-auth refused it for a missing one. */
function malformedChallengeLocation(location: string): string {
  try {
    const url = new URL(location);
    if (url.searchParams.get("error") !== "invalid_request" || !url.searchParams.get("error_description")?.startsWith("pkce")) return location;
    url.searchParams.set("error_description", MALFORMED_CHALLENGE);
    return url.toString();
  } catch {
    return location;
  }
}

/**
 * RFC 7636 §4.4.1: request-hooks.ts drops a malformed code_challenge, so better-auth refuses the
 * request as invalid_request where it should (to the client with its state, once the client and
 * redirect URI check out); its description would say PKCE is missing, which it was not. Both forms
 * of its redirect — a 302, or {redirect, url} for a script — get the right one.
 */
async function malformedChallengeAnswer(answer: Response): Promise<Response> {
  const headers = new Headers(answer.headers);
  const location = headers.get("location");
  if (location) {
    headers.set("location", malformedChallengeLocation(location));
    return new Response(answer.body, { status: answer.status, headers });
  }
  const text = await answer.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: answer.status, headers });
  }
  const url = typeof body === "object" && body !== null ? (body as { url?: unknown }).url : undefined;
  if (typeof url !== "string") return new Response(text, { status: answer.status, headers });
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...(body as Record<string, unknown>), url: malformedChallengeLocation(url) }), { status: answer.status, headers });
}

/** Parameters a request may repeat: RFC 8707 §2 names one resource per `resource` parameter. */
const REPEATABLE_PARAMETERS: ReadonlySet<string> = new Set(["resource"]);

/** The first parameter name `params` carries more than once (a repeatable one aside), or undefined. */
export function repeatedParameter(params: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (REPEATABLE_PARAMETERS.has(name)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * RFC 6749 §3.1: request parameters "MUST NOT be included more than once", and a request that
 * does so is invalid_request (§4.1.2.1, §5.2). better-auth kept one of the values silently, so a
 * proxy or log reading the other saw another request than the one served. At authorize neither
 * copy of client_id or redirect_uri can be trusted, so the person is shown the error page
 * (§4.1.2.1: never redirected to an unverified URI); the form endpoints answer the OAuth error.
 */
/**
 * The parameters of a form-encoded POST body (the token, revocation and introspection endpoints'),
 * read once by the route for every check that needs them, before better-auth takes the body: a
 * Request built from this one leaves it unusable. Undefined for any other request.
 */
export async function formBodyOf(request: Request): Promise<URLSearchParams | undefined> {
  if (request.method !== "POST" || !request.headers.get("content-type")?.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined;
  return new URLSearchParams(await request.clone().text());
}

export function repeatedParameterAnswer(request: Request, form: URLSearchParams | undefined): Response | undefined {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === AUTHORIZATION_ENDPOINT) {
    const name = repeatedParameter(url.searchParams);
    if (name === undefined) return undefined;
    return errorPage("invalid_request");
  }
  if (form === undefined || !RFC_POST_ENDPOINTS.has(path) || path === REGISTRATION_ENDPOINT) return undefined;
  const name = repeatedParameter(form);
  if (name === undefined) return undefined;
  return oauthError(400, "invalid_request", `the parameter ${JSON.stringify(cutText(name, 64))} is included more than once (RFC 6749 §3.1)`, new Headers());
}

/**
 * RFC 8707 §2: a token request naming a resource this server does not serve is invalid_target.
 * Read here, from every `resource` of the form, because better-auth's token endpoint reads the
 * repeated ones again from the raw body, past any hook: its own userinfo URL, which it exempts
 * from the check (served-resource.ts), was issued as an audience beside this server's.
 */
export function foreignResourceAnswer(request: Request, form: URLSearchParams | undefined, resourceUrl: string): Response | undefined {
  if (form === undefined || new URL(request.url).pathname !== TOKEN_ENDPOINT) return undefined;
  const [foreign] = foreignResources(form.getAll("resource"), resourceUrl);
  if (foreign === undefined) return undefined;
  return oauthError(400, "invalid_target", `this server issues tokens for one resource, ${resourceUrl}, not ${JSON.stringify(cutText(foreign, 200))}`, new Headers());
}

/**
 * RFC 9110 §15.5.2: a 401 carries a challenge, and RFC 6749 §5.2 asks for one whenever client
 * authentication failed; better-auth's revocation endpoint answered 401 without any, and its token
 * endpoint a bare `Basic`. Basic, the scheme these endpoints read besides the body, with the realm
 * RFC 7617 §2 requires.
 */
function withClientChallenge(path: string, answer: Response): Response {
  if (answer.status !== 401 || !RFC_POST_ENDPOINTS.has(path)) return answer;
  const challenge = answer.headers.get("www-authenticate");
  if (challenge !== null && !/^\s*basic\s*$/i.test(challenge)) return answer;
  const headers = new Headers(answer.headers);
  headers.set("www-authenticate", `Basic realm="${path}"`);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}

/** `answer` from better-auth for `request` to `endpoint` (endpoint-table.ts), as the RFCs have it. */
export async function conformOAuthAnswer(request: Request, answer: Response, endpoint: AuthEndpoint | undefined): Promise<Response> {
  return withClientChallenge(new URL(request.url).pathname, await conformedAnswer(request, answer, endpoint));
}

async function conformedAnswer(request: Request, answer: Response, endpoint: AuthEndpoint | undefined): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === AUTHORIZATION_ENDPOINT) {
    if (answer.status === 429) return authorizeBusy(answer);
    const challenge = url.searchParams.get("code_challenge");
    return challenge !== null && !isCodeChallenge(challenge) ? malformedChallengeAnswer(answer) : answer;
  }
  // RFC 7009 §2.2: every revocation the server accepts reads alike. better-auth answered `null` as
  // JSON for a live token of another client and nothing for an unknown one, which told any client
  // whether someone else's token existed (outside probe, 2026-11-29).
  if (path === REVOCATION_ENDPOINT && answer.status === 200) return emptyOk(answer);
  if (!path.startsWith(OAUTH_ENDPOINTS) || answer.ok) return answer;
  if (answer.status === 429) return tooManyRequests(answer);
  const body = await errorBody(answer);
  if (answer.status === 415 && body?.code === "UNSUPPORTED_MEDIA_TYPE") return unsupportedMediaType(path, answer, endpoint);
  if (path === INTROSPECTION_ENDPOINT && body?.error === "invalid_client" && (answer.status === 400 || answer.status === 401)) {
    return introspectionClientRefused(answer, typeof body.error_description === "string" ? body.error_description : "client authentication failed");
  }
  // An unknown refresh token was "session not found", one of another client "invalid refresh
  // token": any client could tell whether a token string it held existed (outside probe,
  // 2026-11-29). RFC 6749 §5.2 gives both the one invalid_grant.
  if (path === TOKEN_ENDPOINT && answer.status === 400 && body?.error === "invalid_grant" && body.error_description === "session not found") {
    return oauthError(400, "invalid_grant", "invalid refresh token", answer.headers);
  }
  // RFC 7636 §4.6: a code_verifier that does not match the challenge is invalid_grant, and RFC
  // 6749 §5.2 gives it status 400; better-auth answers 401 invalid_request.
  if (path === TOKEN_ENDPOINT && answer.status === 401 && body?.error === "invalid_request" && body.error_description === "code verification failed") {
    return oauthError(400, "invalid_grant", "code verification failed: the code_verifier does not match the code_challenge", answer.headers);
  }
  // RFC 7009 §2.2: an invalid token (unknown, expired, revoked already) is answered 200 like a
  // revoked one: nothing tells the client which tokens exist. Client authentication failures stay.
  if (path === REVOCATION_ENDPOINT && answer.status === 400 && body?.error === "invalid_request" && typeof body.error_description === "string" && UNKNOWN_TOKEN_DESCRIPTIONS.has(body.error_description)) {
    return emptyOk(answer);
  }
  // better-call's own refusals ({message, code}: a body that is not JSON, say) carry no `error`,
  // which RFC 6749 §5.2 and RFC 7591 §3.2.2 require of every error answer.
  if (RFC_POST_ENDPOINTS.has(path) && answer.status >= 400 && answer.status < 500 && typeof body?.error !== "string") {
    const description = typeof body?.message === "string" ? body.message : "the request could not be read";
    return oauthError(answer.status, path === REGISTRATION_ENDPOINT ? "invalid_client_metadata" : "invalid_request", description, answer.headers);
  }
  return answer;
}
