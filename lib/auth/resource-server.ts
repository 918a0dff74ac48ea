import type { JSONWebKeySet } from "jose";
import { ErrorCode, McpError } from "../jsonrpc";
import { unauthorized, type AccessControl } from "./access-control";
import type { AuthInfo } from "./auth-info";
import { AuthConfigError, signInUnavailable, type AuthSettings } from "./auth-settings";
import { createMetadataSource, type MetadataSource } from "./authorization-server-metadata";
import { readBearer } from "./bearer-token";
import { bearerChallenge } from "./challenge";
import { TokenRejected, VerifierUnavailable, createJwtVerifier, type JwtVerifier } from "./jwt-verifier";
import { expandScopes } from "./scope-catalog";

/**
 * This server as an OAuth 2.1 protected resource: it checks bearer tokens for the MCP core
 * (AccessControl) and publishes what clients need to get one — the protected resource metadata
 * (RFC 9728), and the authorization server's metadata and JWKS on our origin. One per protected
 * resource and process: the key cache and the metadata cache live here.
 */
export interface ResourceServer {
  settings: AuthSettings;
  access: AccessControl;
  protectedResourceMetadata(): Record<string, unknown>;
  /** The authorization server's metadata; `undefined` when it cannot be had (→ 502). Check `signInUnavailable(settings)` first. */
  authorizationServerMetadata(flavor: "oauth" | "openid"): Promise<Record<string, unknown> | undefined>;
  /** The built-in authorization server's JWKS; `undefined` with an external one. Throws when the keys cannot be read. */
  jwks(): Promise<Record<string, unknown> | undefined>;
}

/**
 * The built-in authorization server as the resource server sees it: its published keys and
 * metadata. lib/authorization-server provides it; lib/auth does not depend on better-auth.
 */
export interface BuiltinIssuer {
  jwks(): Promise<JSONWebKeySet>;
  metadata(): Promise<Record<string, unknown>>;
}

const METADATA_TTL_MS = 60 * 60 * 1000;
/** A verified token is reused for at most this long, so a revoked key stops working soon. */
const VERIFIED_CACHE_MS = 60_000;

/**
 * The core's AccessControl over bearer tokens: none is anonymous, a malformed one is a 400, a
 * rejected one a 401 with the challenge, and a verifier that cannot answer a 503.
 */
function bearerAccess(settings: AuthSettings, verifier: JwtVerifier, allScopes: string[], notice: string | undefined): AccessControl {
  const access: AccessControl = {
    mode: settings.mode,
    defaultScopes: allScopes,
    challenge: (details) => bearerChallenge(settings.resourceMetadataUrl, details),
    ...(notice ? { notice } : {}),
    authenticate(request): AuthInfo | undefined | Promise<AuthInfo | undefined> {
      const credentials = readBearer(request);
      if (credentials.kind === "none") return undefined;
      if (notice) throw new McpError(ErrorCode.InternalError, `Service unavailable: ${notice}`, undefined, 503, { "Retry-After": "60" });
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
  return access;
}

/**
 * The resource server of one protected resource (settings from resolveAuthSettings): with an
 * external issuer (MCP_AUTH_ISSUER) it needs nothing else; with none, the built-in authorization
 * server, which it asks for its keys and metadata.
 */
export function createResourceServer(settings: AuthSettings, builtinIssuer?: BuiltinIssuer): ResourceServer {
  const external = settings.issuer.kind === "external" ? settings.issuer : undefined;
  const builtin = settings.issuer.kind === "builtin" ? builtinIssuer : undefined;
  if (settings.issuer.kind === "builtin" && !builtin) {
    throw new AuthConfigError(
      `MCP_AUTH_ISSUER is not set, so tokens for ${settings.resourceUrl} are to come from this app's built-in authorization server, and createResourceServer was not given it: ` +
        "pass it as the second argument (lib/authorization-server: createBuiltinAuthorizationServer(resolveAuthServerSettings(env, settings))), " +
        "or set MCP_AUTH_ISSUER to the issuer of an external authorization server",
    );
  }
  const notice = signInUnavailable(settings);
  const metadata: MetadataSource | undefined = external
    ? createMetadataSource(external.issuer, { ttlMs: METADATA_TTL_MS, timeoutMs: settings.jwks.timeoutMs })
    : undefined;

  const verifier: JwtVerifier = createJwtVerifier({
    issuer: settings.issuer.issuer,
    audience: settings.audience,
    algorithms: settings.algorithms,
    // The built-in server's keys are read in process (no HTTP round trip to ourselves, which a
    // serverless deployment's protection could refuse); every check below is the same.
    keys: builtin
      ? { kind: "local", jwks: () => builtin.jwks(), cooldownMs: settings.jwks.cooldownMs }
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
    requireAccessTokenType: builtin !== undefined,
  });

  const allScopes = settings.scopes.map((s) => s.name);

  const access = bearerAccess(settings, verifier, allScopes, notice);

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
      // The built-in server publishes RFC 8414 metadata only: it is no OpenID provider.
      if (builtin) return flavor === "oauth" ? builtin.metadata().catch(() => undefined) : undefined;
      return (flavor === "oauth" ? metadata?.oauth() : metadata?.openid())?.catch(() => undefined);
    },
    async jwks() {
      return builtin ? { ...(await builtin.jwks()) } : undefined;
    },
  };
}
