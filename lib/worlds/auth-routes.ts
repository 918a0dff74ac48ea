import { signInUnavailable } from "../auth/auth-settings";
import { loadEnv } from "../config/env";
import { applyCors, preflightResponse } from "../http/cors";
import { originPolicyOf } from "../http/origin-guard";
import { clientAddressOf, peerAddressOf, trustedProxiesOf, type ClientAddressPolicy } from "../http/client-address";
import { AUTH_BASE_PATH, CLIENT_ADDRESS_HEADER } from "../authorization-server/paths";
import { isFormAction, submitForm } from "../authorization-server/form-flow";
import { builtinAuthServer } from "./authorization";

/**
 * The route handlers of the built-in authorization server: better-auth's endpoints
 * (app/api/auth/[...all]) and the pages' forms (app/auth/submit/[action]). With an external
 * issuer both answer 404; when the deployment lacks what the server needs, 503 naming it.
 */

/** Endpoints a browser-based client (MCP Inspector) calls cross-origin, without cookies. */
const PUBLIC_ENDPOINTS = new Set(["/oauth2/token", "/oauth2/register", "/oauth2/revoke", "/jwks"].map((p) => `${AUTH_BASE_PATH}${p}`));

let addressPolicy: ClientAddressPolicy | undefined;

/** The caller's address as the MCP endpoint's limits see it: the socket, or a trusted proxy's word. */
function clientAddress(request: Request): string {
  const env = loadEnv();
  addressPolicy ??= { trustedProxies: trustedProxiesOf(env.MCP_TRUSTED_PROXIES), vercel: env.VERCEL === "1" };
  return clientAddressOf(request, peerAddressOf(request, undefined), addressPolicy);
}

/** `request` with the trusted address in the one header better-auth reads (any client copy replaced). */
function withClientAddress(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set(CLIENT_ADDRESS_HEADER, clientAddress(request));
  return new Request(request, { headers });
}

function json(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });
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

async function handleApi(request: Request): Promise<Response> {
  const state = builtinAuthServer();
  const refused = unavailable() ?? (state.kind === "ready" ? crossSiteRefusal(request, new URL(request.url).pathname, state.server.settings.issuer) : undefined);
  const answer = refused ?? (state.kind === "ready" ? await (await state.server.auth()).handler(withClientAddress(request)) : json(404, { error: "not_found" }));
  const path = new URL(request.url).pathname;
  return PUBLIC_ENDPOINTS.has(path) ? applyCors(answer, request, originPolicyOf(loadEnv())) : answer;
}

export const authApiRoute = {
  GET: handleApi,
  POST: handleApi,
  OPTIONS(request: Request): Response {
    const path = new URL(request.url).pathname;
    if (!PUBLIC_ENDPOINTS.has(path)) return new Response(null, { status: 204, headers: { allow: "GET, POST, OPTIONS" } });
    return preflightResponse(request, { ...originPolicyOf(loadEnv()), methods: "GET, POST, OPTIONS" }, { allow: "GET, POST, OPTIONS" });
  },
};

export async function authFormRoute(request: Request, action: string): Promise<Response> {
  const state = builtinAuthServer();
  if (state.kind !== "ready") return unavailable() ?? json(404, { error: "not_found" });
  if (!isFormAction(action)) return json(404, { error: "not_found" });
  return submitForm(await state.server.auth(), { action, request, origin: state.server.settings.issuer, clientAddress: clientAddress(request) });
}
