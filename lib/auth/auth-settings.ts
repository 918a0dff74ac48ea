import type { Env } from "../config/env";
import { canonicalResourceUrl, protectedResourceMetadataUrl } from "./resource-url";
import type { ScopeCatalog } from "./scope-catalog";

/**
 * The authorization configuration, resolved once from the environment with every cross-field
 * rule checked here, so a bad deployment stops at start-up with a message naming the variable
 * (instrumentation.ts) instead of failing token by token.
 */
export interface AuthSettings {
  mode: "required" | "mixed";
  resourceUrl: string;
  resourceMetadataUrl: string;
  resourceName: string;
  resourceDocumentation: string;
  scopes: ScopeCatalog;
  issuer: { kind: "external"; issuer: string; jwksUrl: string | undefined } | { kind: "development"; issuer: string; dir: string };
  audience: string;
  algorithms: readonly string[];
  hs256Secret: string | undefined;
  clockToleranceSeconds: number;
  maxTokenAgeSeconds: number;
  jwks: { cooldownMs: number; cacheMaxAgeMs: number; timeoutMs: number };
  implicitScopes: readonly string[];
}

export class AuthConfigError extends Error {
  override readonly name = "AuthConfigError";
}

const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^ES256K$/;

function resourceUrlOf(env: Env, production: boolean, devIssuer: boolean): string {
  if (env.MCP_RESOURCE_URL) return canonicalResourceUrl(env.MCP_RESOURCE_URL);
  if (env.VERCEL_PROJECT_PRODUCTION_URL) return canonicalResourceUrl(`https://${env.VERCEL_PROJECT_PRODUCTION_URL}/api/mcp`);
  if (production && !devIssuer) {
    throw new AuthConfigError("MCP_RESOURCE_URL is required in production: the canonical https URL of /api/mcp (the tokens' audience)");
  }
  return `http://localhost:${env.PORT ?? 3000}/api/mcp`;
}

export function resolveAuthSettings(env: Env, scopes: ScopeCatalog): AuthSettings {
  const production = env.NODE_ENV === "production";
  const devIssuer = env.MCP_AUTH_ISSUER === undefined;
  if (devIssuer && production && !env.MCP_ALLOW_DEV_ISSUER) {
    throw new AuthConfigError(
      "MCP_AUTH_ISSUER is not set, and the development issuer is refused in production. Configure your authorization server (README: Authorization), or set MCP_ALLOW_DEV_ISSUER=1 for a throwaway demo.",
    );
  }
  const badAlgorithms = env.MCP_AUTH_ALGORITHMS.filter((a) => !ASYMMETRIC.test(a));
  if (badAlgorithms.length > 0) {
    throw new AuthConfigError(`MCP_AUTH_ALGORITHMS accepts asymmetric algorithms only (got ${badAlgorithms.join(", ")}); HS256 is enabled by MCP_AUTH_HS256_SECRET`);
  }
  if (env.MCP_AUTH_HS256_SECRET && devIssuer) throw new AuthConfigError("MCP_AUTH_HS256_SECRET needs MCP_AUTH_ISSUER (the issuer the shared-secret tokens name)");
  const unknownImplicit = env.MCP_AUTH_IMPLICIT_SCOPES.filter((s) => !scopes.some((d) => d.name === s));
  if (unknownImplicit.length > 0) throw new AuthConfigError(`MCP_AUTH_IMPLICIT_SCOPES names unknown scopes: ${unknownImplicit.join(", ")}`);

  const resourceUrl = resourceUrlOf(env, production, devIssuer);
  const origin = new URL(resourceUrl).origin;
  return {
    mode: env.MCP_AUTH_MODE ?? (production ? "required" : "mixed"),
    resourceUrl,
    resourceMetadataUrl: protectedResourceMetadataUrl(resourceUrl),
    resourceName: env.MCP_RESOURCE_NAME,
    resourceDocumentation: env.MCP_RESOURCE_DOCUMENTATION ?? `${origin}/`,
    scopes,
    issuer: devIssuer
      ? { kind: "development", issuer: origin, dir: env.MCP_DEV_ISSUER_DIR }
      : { kind: "external", issuer: env.MCP_AUTH_ISSUER as string, jwksUrl: env.MCP_AUTH_JWKS_URL },
    audience: env.MCP_AUTH_AUDIENCE ?? resourceUrl,
    algorithms: env.MCP_AUTH_ALGORITHMS,
    hs256Secret: env.MCP_AUTH_HS256_SECRET,
    clockToleranceSeconds: env.MCP_AUTH_CLOCK_TOLERANCE_SECONDS,
    maxTokenAgeSeconds: env.MCP_AUTH_MAX_TOKEN_AGE_SECONDS,
    jwks: { cooldownMs: env.MCP_AUTH_JWKS_COOLDOWN_MS, cacheMaxAgeMs: env.MCP_AUTH_JWKS_CACHE_MAX_AGE_MS, timeoutMs: env.MCP_AUTH_JWKS_TIMEOUT_MS },
    implicitScopes: env.MCP_AUTH_IMPLICIT_SCOPES,
  };
}
