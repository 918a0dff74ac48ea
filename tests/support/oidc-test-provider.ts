/**
 * A real OAuth 2.1 / OpenID Connect authorization server for the tests: `oidc-provider` 9.x
 * started in-process on a free loopback port, plus a headless user agent that walks its
 * development login and consent pages the way a browser would (cookies, redirects, forms).
 *
 * The provider is configured the way an MCP deployment needs one: dynamic client registration
 * (public clients included), PKCE required (S256 is the only method 9.x implements), the
 * client_credentials grant, and RFC 8707 resource indicators that turn a token request for a known
 * resource into a JWT access token whose audience is that resource. Everything runs offline.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { errors, type ResourceServerInfo } from "oidc-provider";

export interface TestAuthorizationServer {
  /** The issuer identifier, exactly as the provider writes it in metadata and tokens (no trailing slash). */
  issuer: string;
  /** The kid of the provider's only signing key: every JWT it issues names it. */
  signingKid: string;
  stop(): Promise<void>;
}

export interface AuthorizationServerOptions {
  /** Resource indicator → what the provider issues for it. Any other indicator is invalid_target. */
  resources: Record<string, ResourceServerInfo>;
  /** Static scopes (besides openid and offline_access) clients may register and request. */
  scopes: readonly string[];
}

export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<TestAuthorizationServer> {
  // Listen first, then build the provider: its issuer must name the port it really serves.
  const http: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  // One RS256 key with an explicit kid: the resource server refuses JWTs without one.
  const signingKid = `wc-test-${randomBytes(6).toString("hex")}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: signingKid, alg: "RS256", use: "sig" };

  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    // openid is kept so discovery looks like any OpenID provider's; the MCP flow never asks for it.
    // The resource scopes are listed here too because oidc-provider validates a registration's
    // `scope` metadata against this static list, and the MCP SDK registers with the scopes our
    // protected resource metadata advertises.
    scopes: ["openid", "offline_access", ...options.scopes],
    responseTypes: ["code"],
    // OAuth 2.1: PKCE for every client, public or confidential (S256 is the only method in 9.x).
    pkce: { required: () => true },
    // The development login page accepts any login name: that name becomes the token's subject.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    // Explicit lifetimes (seconds): the default functions work too, but each logs a "you SHOULD change it" notice.
    ttl: { AccessToken: 600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 600, IdToken: 600, Interaction: 600, Session: 600, RefreshToken: 600 },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // No default resource: a request that names none gets an opaque token (the negative test
        // needs one). The MCP SDK always names ours, taken from the protected resource metadata.
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        // The code exchange uses the resource granted at the authorization endpoint even if the
        // token request omits `resource`, so a code flow always ends in a JWT for that resource.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const info = options.resources[indicator];
          if (!info) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return info;
        },
      },
    },
  });

  http.on("request", provider.callback());
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  return {
    issuer,
    signingKid,
    async stop() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        // keep-alive connections from fetch (ours and the server's) would hold close() open.
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/** Per-origin cookie storage: enough of RFC 6265 for one provider (no domains, paths ignored). */
class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: URL): string | undefined {
    const jar = this.byOrigin.get(url.origin);
    if (!jar || jar.size === 0) return undefined;
    return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  store(url: URL, response: Response): void {
    let jar = this.byOrigin.get(url.origin);
    if (!jar) this.byOrigin.set(url.origin, (jar = new Map()));
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      // Deletions arrive as an empty value and/or an expiry in the past.
      const expired = attributes.some((a) => {
        const [key = "", v = ""] = a.split("=");
        if (key.toLowerCase() === "max-age") return Number(v) <= 0;
        if (key.toLowerCase() === "expires") return Date.parse(v) <= Date.now();
        return false;
      });
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  }
}

const decodeEntities = (s: string) => s.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">");

export interface HeadlessAuthorization {
  /** Where the authorization server finally sent the user agent (the client's redirect URI with code, state, iss). */
  callback: URL;
  /** Each page the user agent was shown, in order ("login", "consent"). */
  pages: string[];
}

/**
 * Plays the user's browser: opens `authorizationUrl`, follows redirects within the authorization
 * server keeping its cookies, signs in on the development login page as `login`, confirms the
 * consent page, and stops at the first redirect to `redirectUri` (which is never requested).
 */
export async function authorizeHeadlessly(authorizationUrl: URL, { login, redirectUri }: { login: string; redirectUri: string }): Promise<HeadlessAuthorization> {
  const jar = new CookieJar();
  const pages: string[] = [];
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 20; step += 1) {
    if (url.href.startsWith(redirectUri)) return { callback: url, pages };
    const cookie = jar.header(url);
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: { ...(cookie ? { cookie } : {}), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      ...(form ? { body: form } : {}),
    });
    jar.store(url, response);
    form = undefined;
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`authorization server answered ${response.status} at ${url.pathname}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no interaction form at ${url.pathname}: ${html.slice(0, 500)}`);
    pages.push(prompt);
    // The development pages: "login" takes any login name and password; "consent" is one button.
    form = prompt === "login" ? new URLSearchParams({ prompt, login, password: "any password" }) : new URLSearchParams({ prompt });
    url = new URL(decodeEntities(action), url);
  }
  throw new Error("the authorization flow did not reach the redirect URI within 20 steps");
}
