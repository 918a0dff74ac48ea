import { APIError, createAuthMiddleware } from "better-auth/api";
import type { AuthHookContext } from "./hook-context";
import { isLoopbackHost } from "../http/loopback-host";
import { isInactiveJwt, NOT_HELD_TOKEN } from "./inactive-jwt";
import { WEB_PAGE_FIELDS, httpsUrlOf, isCodeChallenge, isCodeVerifier, isWebPage, registrationProblem, signUpProblem, unplainParameter, type UnplainParameter } from "./input-limits";
import { AuthPage, OFFLINE_ACCESS } from "./paths";
import { redirectUriFormProblem } from "./redirect-uri-form";
import { canonicalResources, withoutUserinfoExemption } from "./served-resource";
import { offeredScopeNames, signUpRefusal, type AuthServerSettings } from "./settings";

/**
 * What the built-in server adds in front of better-auth's endpoints, each for a client that
 * exists today:
 * - registration: every text field within its bound (./input-limits.ts; better-auth stores any
 *   length), http(s) redirect URIs written as such (./redirect-uri-form.ts), page and logo URLs
 *   other than https dropped, back-channel logout never stored, software statements ignored;
 *   clients with a loopback or private-use redirect URI and https ones beside it are native
 *   apps (RFC 8252 §7); MCP Inspector and the SDKs register
 *   `http://localhost:…` without saying so, and better-auth would treat them as web clients
 *   that need https;
 * - revocation: the token type hint is dropped, so every type is searched (RFC 7009 §2.1);
 * - revocation and introspection: an expired or forged access token JWT is answered as unknown;
 * - authorization: the token's audience is this server's one resource (RFC 8707) even when a
 *   client sends no `resource`, and no other, better-auth's userinfo URL included
 *   (./served-resource.ts); `offline_access` is asked for so a linked account stays linked
 *   (ChatGPT and Claude refresh; the consent page says so);
 * - token: a code_verifier of another form than RFC 7636 §4.1's is invalid_request;
 * - sign-up: the policy of MCP_AUTH_SIGNUP and MCP_AUTH_SIGNUP_DOMAINS;
 * - every endpoint: a callback URL that leaves this site is refused (no open redirect), and so is
 *   a parameter with a control character or a lone surrogate (PostgreSQL cannot store a NUL).
 * Failed sign-ins per account are counted by ./sign-in-attempts.ts, which needs a hook after the
 * endpoint as well.
 */

const CALLBACK_FIELDS = ["callbackURL", "redirectTo", "errorCallbackURL", "newUserCallbackURL"] as const;

/** A callback a request may name: a path on this site ("/x", not "//host"), or a URL of its origin. */
function isOwnCallback(value: unknown, origin: string): boolean {
  if (typeof value !== "string") return true;
  if (value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) return true;
  try {
    return new URL(value).origin === origin;
  } catch {
    return false;
  }
}

/** An https redirect URI on a host that is not loopback: what a web client (and a native one, RFC 8252 §7.2) may use. */
function isWebRedirect(uri: unknown): boolean {
  const url = httpsUrlOf(uri);
  return url !== undefined && !isLoopbackHost(url.hostname);
}

/**
 * The application_type to register a client as when it names none: native when any redirect URI
 * is loopback or a private-use scheme and the rest are https (VS Code registers its loopback port
 * beside https://vscode.dev/redirect), which better-auth would refuse as a web client's.
 */
function impliedApplicationType(uris: unknown): "native" | undefined {
  if (!Array.isArray(uris) || uris.length === 0 || !uris.some(isNativeRedirect)) return undefined;
  return uris.every((uri) => isNativeRedirect(uri) || isWebRedirect(uri)) ? "native" : undefined;
}

function isNativeRedirect(uri: unknown): boolean {
  if (typeof uri !== "string") return false;
  try {
    const url = new URL(uri);
    if (url.protocol === "http:") return isLoopbackHost(url.hostname);
    // A private-use scheme (com.example.app:/cb); better-auth itself refuses javascript:, data:…
    return url.protocol !== "https:";
  } catch {
    return false;
  }
}

function withOfflineAccess(scope: unknown): string | undefined {
  if (typeof scope !== "string") return undefined;
  const scopes = scope.split(" ").filter(Boolean);
  return scopes.includes(OFFLINE_ACCESS) ? scope : [...scopes, OFFLINE_ACCESS].join(" ");
}

const REDIRECT_URI_FIELDS: ReadonlySet<string> = new Set(["redirect_uris", "post_logout_redirect_uris"]);

/**
 * The answer to a request whose parameter is not plain text or nests too deep, in the error shape
 * of the endpoint at `path`: registration's (RFC 7591 §3.2.2), the other OAuth endpoints' (RFC 6749
 * §5.2), better-auth's own elsewhere. /oauth2/authorize cannot trust the client_id or redirect_uri it
 * carries, so the person is shown our error page instead (RFC 6749 §4.1.2.1).
 */
function unplainRefusal(path: string, { name, problem }: UnplainParameter, redirect: (url: string) => Error): Error {
  const description = `${name} ${problem}`;
  if (path === "/oauth2/authorize") return redirect(`${AuthPage.Error}?error=invalid_request`);
  if (path === "/oauth2/register") return new APIError("BAD_REQUEST", { error: REDIRECT_URI_FIELDS.has(name) ? "invalid_redirect_uri" : "invalid_client_metadata", error_description: description });
  if (path.startsWith("/oauth2/") || path.startsWith("/.well-known/")) return new APIError("BAD_REQUEST", { error: "invalid_request", error_description: description });
  return new APIError("BAD_REQUEST", { message: description, code: "INVALID_REQUEST" });
}

/**
 * RFC 7009 §2.2, RFC 7662 §2.2: an expired or forged access token JWT is answered as a token the
 * server does not hold (inactive-jwt.ts says why better-auth cannot tell). Replaced in place, so
 * the endpoint still authenticates the client first (RFC 7009 §2.1, RFC 7662 §2.1).
 */
async function replaceInactiveJwt(body: Record<string, unknown>, settings: AuthServerSettings): Promise<void> {
  if (await isInactiveJwt(body.token, settings.issuer, settings.keysDir)) body.token = NOT_HELD_TOKEN;
}

/**
 * prompt=select_account as prompt=login: the sign-in page is where an account is chosen here, and
 * the consent page names the account and offers another. better-auth, with no account-selection
 * page configured, sent the person to its error page, with nothing sent back to the client
 * (outside probe, 2026-11-29; OpenID Connect Core §3.1.2.1 has the server prompt the choice).
 */
function selectAccountAsLogin(prompt: unknown): string | undefined {
  if (typeof prompt !== "string") return undefined;
  const values = prompt.split(" ").filter(Boolean);
  if (!values.includes("select_account")) return undefined;
  return [...new Set(values.map((value) => (value === "select_account" ? "login" : value)))].join(" ");
}

/**
 * A token request naming a confidential client (registered with a secret or a key) that carries
 * no credentials at all: no secret, no assertion, no Basic header. RFC 6749 §3.2.1: such a client
 * authenticates at the token endpoint; better-auth looked the code up first and spent it before
 * refusing the client, so anyone who saw a confidential client's code could destroy it (outside
 * probe, 2026-11-29). Refused here, before the grant is looked at; client-first.ts does the same
 * for a wrong secret.
 */
async function isConfidentialWithoutCredentials(adapter: AuthHookContext["context"]["adapter"], body: Record<string, unknown>, headers: Headers | undefined): Promise<boolean> {
  if (typeof body.client_id !== "string" || body.client_id === "") return false;
  if (body.client_secret !== undefined || body.client_assertion !== undefined || headers?.has("authorization")) return false;
  const client = await adapter.findOne<{ tokenEndpointAuthMethod: string | null }>({ model: "oauthClient", where: [{ field: "clientId", value: body.client_id }] });
  // An unknown client is better-auth's to refuse; a public one ("none") needs no credentials.
  return client !== null && client.tokenEndpointAuthMethod !== "none";
}

export function requestHooks(settings: AuthServerSettings) {
  return createAuthMiddleware(async (ctx) => {
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    const query = (ctx.query ?? {}) as Record<string, unknown>;
    // First, before any endpoint or hook below looks a value up in the database.
    const unplain = unplainParameter(query) ?? unplainParameter(body);
    if (unplain !== undefined) throw unplainRefusal(ctx.path, unplain, (url) => ctx.redirect(url));
    for (const name of CALLBACK_FIELDS) {
      if (!isOwnCallback(body[name], settings.issuer) || !isOwnCallback(query[name], settings.issuer)) {
        throw new APIError("BAD_REQUEST", { message: `${name} must be a page of this site`, code: "INVALID_CALLBACK_URL" });
      }
    }
    switch (ctx.path) {
      case "/oauth2/register": {
        const problem = registrationProblem(body) ?? redirectUriFormProblem(body);
        if (problem) throw new APIError("BAD_REQUEST", { ...problem });
        // Bearer tokens only (no DPoP, see dpop_jkt below): a client cannot ask for bound ones.
        // Deleted in place: a hook's returned context is merged over the request's, never removing a key.
        delete body.dpop_bound_access_tokens;
        // Unsigned or signed by no one this server trusts, a statement proves nothing; RFC 7591
        // §3.1.1 lets a server that does not support them ignore them (it was stored as given).
        delete body.software_statement;
        // Back-channel logout is OpenID Connect's, and the metadata offers none; better-auth would
        // POST a logout token to the client's URL on every sign-out: a request to a host of anyone's
        // choosing, checked by its spelling only (review, 2026-11-27).
        delete body.backchannel_logout_uri;
        delete body.backchannel_logout_session_required;
        for (const field of WEB_PAGE_FIELDS) if (body[field] !== undefined && !isWebPage(body[field])) delete body[field];
        if (typeof body.scope === "string") {
          // RFC 7591 §3.2.1: the server may replace requested values, and the answer's `scope` says
          // what was registered. Scopes it does not offer (OpenID Connect's openid, profile, email,
          // which some clients put in every registration) are dropped, as a subset is replaced by
          // the defaults: better-auth refused them with invalid_scope, not an RFC 7591 code, and the
          // client could not sign in at all (outside audit, 2026-11-28).
          // offline_access stays with what is kept: authorize asks for it on every grant.
          const offered = offeredScopeNames(settings);
          const kept = body.scope.split(" ").filter((scope) => offered.includes(scope));
          if (kept.length > 0) body.scope = [...new Set([...kept, OFFLINE_ACCESS])].join(" ");
          else delete body.scope;
        }
        const implied = body.application_type === undefined ? impliedApplicationType(body.redirect_uris) : undefined;
        if (implied) return { context: { body: { ...body, application_type: implied } } };
        return;
      }
      case "/oauth2/authorize": {
        // better-auth sends an unknown client to the error page saying "client_id is required".
        if (typeof query.client_id === "string" && query.client_id !== "" && !(await ctx.context.adapter.findOne({ model: "oauthClient", where: [{ field: "clientId", value: query.client_id }] }))) {
          throw ctx.redirect(`${AuthPage.Error}?error=invalid_client&error_description=${encodeURIComponent("this client_id is not registered here")}`);
        }
        // RFC 7636 §4.4.1: a malformed challenge is invalid_request. Without it better-auth refuses
        // the request as invalid_request itself, after checking the client and redirect URI, so the
        // error goes back to the client with its state (RFC 6749 §4.1.2.1). Deleted in place (see below).
        if (query.code_challenge !== undefined && !isCodeChallenge(query.code_challenge)) delete query.code_challenge;
        const scope = withOfflineAccess(query.scope);
        const prompt = selectAccountAsLogin(query.prompt);
        // dpop_jkt would bind the code to a DPoP key; this server issues Bearer tokens only, which
        // /api/mcp reads (RFC 9449 §5: a server without DPoP ignores it and issues Bearer tokens).
        delete query.dpop_jkt;
        return {
          context: {
            query: {
              ...query,
              resource: query.resource === undefined ? settings.resourceUrl : withoutUserinfoExemption(canonicalResources(query.resource, settings.resourceUrl), `${ctx.context.baseURL}/oauth2/userinfo`),
              ...(scope !== undefined ? { scope } : {}),
              ...(prompt !== undefined ? { prompt } : {}),
            },
          },
        };
      }
      case "/oauth2/revoke":
        // RFC 7009 §2.1: a token the hint does not find MUST be searched for as the other type;
        // given a hint, better-auth searches that type only and answers 200 having revoked
        // nothing. Without one it tries both, access token first ("MAY ignore" the hint, §2.1).
        delete body.token_type_hint;
        await replaceInactiveJwt(body, settings);
        return;
      case "/oauth2/introspect":
        await replaceInactiveJwt(body, settings);
        return;
      case "/oauth2/token": {
        // RFC 7636 §4.1: 43 to 128 unreserved characters. better-auth hashed any string and compared,
        // so a verifier of three letters redeemed a code whose challenge was made from it.
        if (body.code_verifier !== undefined && !isCodeVerifier(body.code_verifier)) {
          throw new APIError("BAD_REQUEST", { error: "invalid_request", error_description: "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)" });
        }
        if (await isConfidentialWithoutCredentials(ctx.context.adapter, body, ctx.request?.headers ?? ctx.headers)) {
          throw new APIError("UNAUTHORIZED", { error: "invalid_client", error_description: "client authentication failed" });
        }
        // RFC 6749 §6: a narrowed refresh still gets a refresh token (refresh-scope.ts restores its scope).
        const scope = body.grant_type === "refresh_token" ? withOfflineAccess(body.scope) : undefined;
        if (body.resource === undefined && scope === undefined) return;
        return {
          context: {
            body: {
              ...body,
              ...(body.resource !== undefined ? { resource: canonicalResources(body.resource, settings.resourceUrl) } : {}),
              ...(scope !== undefined ? { scope } : {}),
            },
          },
        };
      }
      case "/sign-up/email": {
        const tooLong = signUpProblem(body);
        if (tooLong) throw new APIError("BAD_REQUEST", { message: tooLong, code: "FIELD_TOO_LONG" });
        const refusal = signUpRefusal(settings, typeof body.email === "string" ? body.email : "");
        if (refusal) throw new APIError("FORBIDDEN", { message: refusal, code: settings.signUp.open ? "SIGN_UP_DOMAIN" : "SIGN_UP_CLOSED" });
        return;
      }
      default:
        return;
    }
  });
}
