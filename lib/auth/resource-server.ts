import { ErrorCode, McpError } from "../jsonrpc";
import { unauthorized, type AccessControl } from "../mcp/access";
import type { AuthInfo } from "./auth-info";
import type { AuthSettings } from "./auth-settings";
import { createMetadataSource, type MetadataSource } from "./authorization-server-metadata";
import { readBearer } from "./bearer-token";
import { bearerChallenge } from "./challenge";
import { devJwks, loadDevKey, type DevKey } from "./dev-issuer";
import { TokenRejected, VerifierUnavailable, createJwtVerifier, type JwtVerifier } from "./jwt-verifier";
import { expandScopes } from "./scope-catalog";

/**
 * This server as an OAuth 2.1 protected resource: it checks bearer tokens for the MCP core
 * (AccessControl) and publishes what clients need to get one — the protected resource metadata
 * (RFC 9728), the authorization server's metadata mirrored on our origin, and, with the
 * development issuer, its JWKS. One per process: the JWKS cache and the metadata cache live here.
 */
export interface ResourceServer {
  settings: AuthSettings;
  access: AccessControl;
  protectedResourceMetadata(): Record<string, unknown>;
  /** The authorization server's metadata; `undefined` when it cannot be had (→ 502). */
  authorizationServerMetadata(flavor: "oauth" | "openid"): Promise<Record<string, unknown> | undefined>;
  /** The development issuer's JWKS; `undefined` with an external authorization server. */
  jwks(): Promise<Record<string, unknown> | undefined>;
}

const METADATA_TTL_MS = 60 * 60 * 1000;
/** A verified token is reused for at most this long, so a revoked key stops working soon. */
const VERIFIED_CACHE_MS = 60_000;

export function createResourceServer(settings: AuthSettings): ResourceServer {
  const dev = settings.issuer.kind === "development" ? settings.issuer : undefined;
  const external = settings.issuer.kind === "external" ? settings.issuer : undefined;
  let devKey: Promise<DevKey> | undefined;
  const loadKey = (dir: string) => (devKey ??= loadDevKey(dir).catch((thrown: unknown) => {
    devKey = undefined;
    throw thrown;
  }));
  const metadata: MetadataSource | undefined = external
    ? createMetadataSource(external.issuer, { ttlMs: METADATA_TTL_MS, timeoutMs: settings.jwks.timeoutMs })
    : undefined;

  const verifier: JwtVerifier = createJwtVerifier({
    issuer: settings.issuer.issuer,
    audience: settings.audience,
    algorithms: settings.algorithms,
    keys: dev
      ? { kind: "local", jwks: async () => devJwks(await loadKey(dev.dir)) }
      : {
          kind: "remote",
          // Configured, else the issuer's published jwks_uri. Never a guess: a wrong URL would
          // be kept for the life of the process. Metadata that cannot be had now is retried on
          // the next token (503 meanwhile).
          jwksUrl: async () => {
            if (external?.jwksUrl) return new URL(external.jwksUrl);
            const found = await metadata?.oauth();
            if (!found?.jwks_uri) throw new Error(`${settings.issuer.issuer} publishes no jwks_uri: set MCP_AUTH_JWKS_URL`);
            return new URL(found.jwks_uri);
          },
          ...settings.jwks,
        },
    hs256Secret: settings.hs256Secret,
    clockToleranceSeconds: settings.clockToleranceSeconds,
    maxTokenAgeSeconds: settings.maxTokenAgeSeconds,
    implicitScopes: settings.implicitScopes,
    expandScopes: (scopes) => expandScopes(settings.scopes, scopes),
    cacheMs: Math.min(VERIFIED_CACHE_MS, settings.jwks.cacheMaxAgeMs),
  });

  const allScopes = settings.scopes.map((s) => s.name);

  const access: AccessControl = {
    mode: settings.mode,
    defaultScopes: allScopes,
    challenge: (details) => bearerChallenge(settings.resourceMetadataUrl, details),
    authenticate(request): AuthInfo | undefined | Promise<AuthInfo | undefined> {
      const credentials = readBearer(request);
      if (credentials.kind === "none") return undefined;
      // RFC 6750 §3.1: a malformed request is a 400 invalid_request, still with the challenge.
      if (credentials.kind === "malformed") throw unauthorized(access, { error: "invalid_request", description: credentials.reason }, 400);
      return verifier.verify(credentials.token).catch((thrown: unknown) => {
        if (thrown instanceof TokenRejected) throw unauthorized(access, { error: "invalid_token", description: thrown.message });
        if (thrown instanceof VerifierUnavailable) {
          throw new McpError(ErrorCode.InternalError, "Service unavailable: tokens cannot be verified right now", undefined, 503, { "Retry-After": "5" });
        }
        throw thrown;
      });
    },
  };

  return {
    settings,
    access,
    protectedResourceMetadata: () => ({
      resource: settings.resourceUrl,
      authorization_servers: [settings.issuer.issuer],
      scopes_supported: allScopes,
      bearer_methods_supported: ["header"],
      resource_name: settings.resourceName,
      resource_documentation: settings.resourceDocumentation,
    }),
    async authorizationServerMetadata(flavor) {
      if (dev) {
        // The development issuer hands out tokens only through `npm run token`: no endpoints.
        return {
          issuer: dev.issuer,
          jwks_uri: `${dev.issuer}/.well-known/jwks.json`,
          scopes_supported: allScopes,
          response_types_supported: [],
          grant_types_supported: [],
          service_documentation: settings.resourceDocumentation,
        };
      }
      return (flavor === "oauth" ? metadata?.oauth() : metadata?.openid())?.catch(() => undefined);
    },
    async jwks() {
      return dev ? devJwks(await loadKey(dev.dir)) : undefined;
    },
  };
}
