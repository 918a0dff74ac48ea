import { errorBody } from "./oauth-answers";
import { OAuthEndpoint } from "./paths";

const { Token: TOKEN_ENDPOINT, Introspection: INTROSPECTION_ENDPOINT } = OAuthEndpoint;

/** A token that names nothing: the introspection endpoint answers it inactive once the client is authenticated. */
const NO_TOKEN = "client-authentication-check";

/**
 * The client secret a token request carried, as the introspection endpoint reads it: the Basic
 * credentials (RFC 6749 §2.3.1), or client_id and client_secret in the form. Undefined when it
 * carried none (a public client, a client assertion: its jti may be spent once only).
 */
function secretCredentials(request: Request, form: URLSearchParams): { authorization?: string; fields?: Record<string, string> } | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization !== null && /^basic\s/i.test(authorization)) return { authorization };
  const clientId = form.get("client_id");
  const secret = form.get("client_secret");
  return clientId !== null && secret !== null ? { fields: { client_id: clientId, client_secret: secret } } : undefined;
}

/** better-auth refuses failed client credentials 401 when they came by Basic, 400 invalid_client when in the body. */
async function clientRefused(answer: Response): Promise<boolean> {
  return answer.status === 401 || (answer.status === 400 && (await errorBody(answer))?.error === "invalid_client");
}

/**
 * better-auth's answer to `request`, with the client authenticated first at the token endpoint.
 * RFC 6749 §3.2.1, §4.1.3 and §6: the token endpoint authenticates a client that sent credentials,
 * then looks at its grant. better-auth looks the code or refresh token up first, and spends a code
 * before it checks the secret: whoever held a stolen code and not the secret could destroy it, and
 * the answers (400 or 401, one description or another) told whether a code or refresh token was
 * live (outside probes, 2026-11-28 and 2026-11-29). So a token request that carries a secret has
 * those credentials checked first at the introspection endpoint, which authenticates the client
 * before anything else (RFC 7662 §2.1); if they fail there, the answer is 401 invalid_client and
 * the grant is never looked at. `form`: the request's form body (formBodyOf); `handle`:
 * better-auth's handler as the route calls it (the caller's address for its limits).
 */
export async function answerClientFirst(request: Request, form: URLSearchParams | undefined, handle: (request: Request) => Promise<Response>): Promise<Response> {
  const url = new URL(request.url);
  if (form === undefined || url.pathname !== TOKEN_ENDPOINT) return handle(request);
  const credentials = secretCredentials(request, form);
  if (!credentials) return handle(request);
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete("authorization");
  if (credentials.authorization) headers.set("authorization", credentials.authorization);
  const check = await handle(new Request(new URL(INTROSPECTION_ENDPOINT, url), { method: "POST", headers, body: new URLSearchParams({ token: NO_TOKEN, ...credentials.fields }) }));
  const refused = await clientRefused(check);
  await check.body?.cancel();
  if (!refused) return handle(request);
  return new Response(JSON.stringify({ error: "invalid_client", error_description: "client authentication failed" }), {
    status: 401,
    headers: { "content-type": "application/json", "cache-control": "no-store", "www-authenticate": `Basic realm="${TOKEN_ENDPOINT}"` },
  });
}
