import { signInUnavailable } from "../auth/auth-settings";
import { loadEnv } from "../config/env";
import { applyCors, preflightResponse } from "../http/cors";
import { originPolicyOf } from "../http/origin-guard";
import { clientAddressOf, clientAddressPolicyOf, peerAddressOf } from "../http/client-address";
import { requestWithin } from "../http/read-body";
import { isIdentityEncoding, unsupportedEncoding } from "../http/content-encoding";
import { McpError } from "../jsonrpc";
import { AUTH_MAX_BODY_BYTES } from "../authorization-server/input-limits";
import { AUTH_BASE_PATH, CLIENT_ADDRESS_HEADER } from "../authorization-server/paths";
import type { BuiltinAuthorizationServer } from "../authorization-server/auth-server";
import { isFormAction, submitForm } from "../authorization-server/form-flow";
import { endpointTable } from "../authorization-server/endpoint-table";
import { answerClientFirst } from "../authorization-server/client-first";
import { conformOAuthAnswer, foreignResourceAnswer, formBodyOf, methodNotAllowed, repeatedParameterAnswer } from "../authorization-server/oauth-answers";
import { builtinAuthServer } from "./authorization";

/**
 * The route handlers of the built-in authorization server: better-auth's endpoints
 * (app/api/auth/[...all]) and the pages' forms (app/auth/submit/[action]). With an external
 * issuer both answer 404; when the deployment lacks what the server needs, 503 naming it.
 */

/** Endpoints a browser-based client (MCP Inspector) calls cross-origin, without cookies. */
const PUBLIC_ENDPOINTS = new Set(["/oauth2/token", "/oauth2/register", "/oauth2/revoke", "/jwks"].map((p) => `${AUTH_BASE_PATH}${p}`));

/** The caller's address as the MCP endpoint's limits see it: the socket, or a trusted proxy's word. */
function clientAddress(request: Request): string {
  return clientAddressOf(request, peerAddressOf(request.headers, undefined), clientAddressPolicyOf(loadEnv()));
}

/**
 * `request` as better-auth gets it: the trusted address in the one header it reads (any client
 * copy replaced), and no DPoP proof. This server issues Bearer tokens only, which is what /api/mcp
 * reads: a DPoP-bound token would be refused there. RFC 9449 §5: an authorization server that
 * does not do DPoP ignores the proof and answers token_type Bearer, which DPoP clients accept.
 */
function forBetterAuth(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set(CLIENT_ADDRESS_HEADER, clientAddress(request));
  headers.delete("dpop");
  return new Request(request, { headers });
}

function json(status: number, body: Record<string, unknown>, headers?: Readonly<Record<string, string>>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

/**
 * The request with its body read within AUTH_MAX_BODY_BYTES and MCP_BODY_TIMEOUT_MS (better-auth
 * and the forms read any size, for as long as it takes), or the refusal as an OAuth error body:
 * 415 (with Accept-Encoding) for a body sent with a Content-Encoding other than identity, before
 * it is read (better-auth and the forms would read the coded bytes as plain), 413, 408, or 400
 * for a body the client broke off.
 */
async function boundedRequest(request: Request): Promise<Request | Response> {
  try {
    const encoding = request.headers.get("content-encoding");
    if (request.body !== null && !isIdentityEncoding(encoding)) throw unsupportedEncoding(encoding ?? "");
    return await requestWithin(request, { maxBytes: AUTH_MAX_BODY_BYTES, timeoutMs: loadEnv().MCP_BODY_TIMEOUT_MS });
  } catch (thrown) {
    if (!(thrown instanceof McpError) || thrown.httpStatus === undefined) throw thrown;
    return json(thrown.httpStatus, { error: "invalid_request", error_description: thrown.message }, thrown.headers);
  }
}

function unavailable(): Response | undefined {
  const state = builtinAuthServer();
  if (state.kind === "external") return json(404, { error: "not_found", error_description: "this deployment uses an external authorization server (MCP_AUTH_ISSUER)" });
  if (state.kind === "unavailable") return json(503, { error: "temporarily_unavailable", error_description: signInUnavailable(state) });
  return undefined;
}

/**
 * Login CSRF: our pages never post to these endpoints from the browser (their forms go through
 * app/auth/submit), so a browser POST from another site — an Origin that is not ours, or Fetch
 * Metadata saying cross-site — is refused whether or not it carries cookies. The cookie-less
 * OAuth endpoints clients call from anywhere are exempt.
 */
function crossSiteRefusal(request: Request, path: string, issuer: string): Response | undefined {
  if (request.method !== "POST" || PUBLIC_ENDPOINTS.has(path)) return undefined;
  const origin = request.headers.get("origin");
  const crossSite = request.headers.get("sec-fetch-site") === "cross-site";
  if ((origin !== null && origin !== issuer) || crossSite) return json(403, { error: "invalid_request", error_description: "cross-site requests are not accepted here" });
  return undefined;
}

/**
 * better-auth's answer, the body read first within AUTH_MAX_BODY_BYTES (better-auth reads any
 * size). A method the endpoint does not take is 405 with its `Allow` (better-auth's router said
 * 404, as for a path that is not there); an unknown path is left to better-auth's 404.
 */
async function betterAuthAnswer(server: BuiltinAuthorizationServer, request: Request, path: string): Promise<Response> {
  const auth = await server.auth();
  const endpoint = endpointTable(auth).at(path);
  if (endpoint && !endpoint.methods.some((method) => method === request.method)) return methodNotAllowed(path, endpoint);
  const bounded = await boundedRequest(request);
  if (bounded instanceof Response) return bounded;
  const form = await formBodyOf(bounded);
  const refused = repeatedParameterAnswer(bounded, form) ?? foreignResourceAnswer(bounded, form, server.settings.resourceUrl);
  if (refused) return refused;
  const handle = (request: Request) => auth.handler(forBetterAuth(request));
  return conformOAuthAnswer(bounded, await answerClientFirst(bounded, form, handle), endpoint);
}

async function handleApi(request: Request): Promise<Response> {
  const state = builtinAuthServer();
  const path = new URL(request.url).pathname;
  const refused = unavailable() ?? (state.kind === "ready" ? crossSiteRefusal(request, path, state.server.settings.issuer) : undefined);
  const answer = refused ?? (state.kind === "ready" ? await betterAuthAnswer(state.server, request, path) : json(404, { error: "not_found" }));
  return PUBLIC_ENDPOINTS.has(path) ? applyCors(answer, request, originPolicyOf(loadEnv())) : answer;
}

/** OPTIONS: 204 with the endpoint's own `Allow`; for the public endpoints a CORS preflight as well. */
async function handleOptions(request: Request): Promise<Response> {
  const state = builtinAuthServer();
  if (state.kind !== "ready") return unavailable() ?? json(404, { error: "not_found" });
  const path = new URL(request.url).pathname;
  const endpoint = endpointTable(await state.server.auth()).at(path);
  if (!endpoint) return json(404, { error: "not_found" });
  const allow = { allow: endpoint.allow };
  if (!PUBLIC_ENDPOINTS.has(path)) return new Response(null, { status: 204, headers: allow });
  return preflightResponse(request, { ...originPolicyOf(loadEnv()), methods: endpoint.allow }, allow);
}

/**
 * Every method is handled here, not by lib/http/route-methods.ts's route-wide 405: each endpoint
 * takes its own methods (the token endpoint POST, the JWKS GET), and its `Allow` says which
 * whatever method was sent (RFC 9110 §15.5.6).
 */
export const authApiRoute = {
  GET: handleApi,
  POST: handleApi,
  PUT: handleApi,
  DELETE: handleApi,
  PATCH: handleApi,
  OPTIONS: handleOptions,
};

export async function authFormRoute(request: Request, action: string): Promise<Response> {
  const state = builtinAuthServer();
  if (state.kind !== "ready") return unavailable() ?? json(404, { error: "not_found" });
  if (!isFormAction(action)) return json(404, { error: "not_found" });
  const bounded = await boundedRequest(request);
  if (bounded instanceof Response) return bounded;
  return submitForm(await state.server.auth(), { action, request: bounded, origin: state.server.settings.issuer, clientAddress: clientAddress(bounded) });
}
