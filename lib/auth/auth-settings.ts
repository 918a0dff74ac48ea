import { clientAddressPolicyOf } from "../http/client-address";
import { isLoopbackHost } from "../http/loopback-host";
import { requestOriginOf } from "../http/request-origin";
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
  /**
   * external: MCP_AUTH_ISSUER. builtin: this app's own authorization server
   * (lib/authorization-server), whose issuer identifier is the origin of the resource URL.
   */
  issuer: { kind: "external"; issuer: string; jwksUrl: string | undefined } | { kind: "builtin"; issuer: string };
  /**
   * What keeps the built-in authorization server from issuing tokens, each naming its variable
   * (a missing secret in production, no database on Vercel…). Not thrown: the open tools keep
   * serving, and every 401/503 and the home page say what to set.
   */
  problems: readonly string[];
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

/**
 * The protected resource one AuthSettings is for: one MCP endpoint of the app. Its URL is the
 * audience its tokens must name and the `resource` its metadata names (RFC 8707 §2, RFC 9728 §2;
 * basic/authorization §token audience binding), so two endpoints never share one: a token issued
 * for one is refused by the other, and each has its own metadata document.
 */
export interface ProtectedResource {
  /** Where the endpoint is mounted in this app ("/api/mcp"): its URL is the deployment's public origin with this path, unless `url` names it. */
  path: string;
  /** Its canonical URL where the configuration names it outright (a proxy that adds a prefix, another host). */
  url?: string | undefined;
  /** `resource_name` in its metadata, and the built-in authorization server's name for it. */
  name: string;
  /** `resource_documentation` in its metadata; default: the origin's home page. */
  documentation?: string | undefined;
  /** The `aud` its tokens carry when that is not its URL (an issuer's API identifier). */
  audience?: string | undefined;
  /**
   * Scopes of its own catalogue granted to a token that carries no scope claim at all (an issuer
   * such as Supabase that never writes one); default none. Per resource: another endpoint's
   * catalogue names other scopes.
   */
  implicitScopes?: readonly string[] | undefined;
}

/**
 * The resource the MCP_RESOURCE_* variables describe (MCP_RESOURCE_URL, MCP_RESOURCE_NAME,
 * MCP_RESOURCE_DOCUMENTATION, MCP_AUTH_AUDIENCE, MCP_AUTH_IMPLICIT_SCOPES), mounted at `path`: the
 * app's primary endpoint. Another endpoint of the same deployment describes itself ({ path, name,
 * implicitScopes? }) and shares only the origin.
 */
export function resourceFromEnv(env: Pick<Env, "MCP_RESOURCE_URL" | "MCP_RESOURCE_NAME" | "MCP_RESOURCE_DOCUMENTATION" | "MCP_AUTH_AUDIENCE" | "MCP_AUTH_IMPLICIT_SCOPES">, path: string): ProtectedResource {
  return { path, url: env.MCP_RESOURCE_URL, name: env.MCP_RESOURCE_NAME, documentation: env.MCP_RESOURCE_DOCUMENTATION, audience: env.MCP_AUTH_AUDIENCE, implicitScopes: env.MCP_AUTH_IMPLICIT_SCOPES };
}

type ResourceUrlEnv = Pick<Env, "MCP_RESOURCE_URL" | "VERCEL_PROJECT_PRODUCTION_URL">;
type ResourceLocation = Pick<ProtectedResource, "path" | "url">;

/** The deployment's public origin as the configuration names it, if it does: MCP_RESOURCE_URL's, else Vercel's production host. */
export function configuredOrigin(env: ResourceUrlEnv): string | undefined {
  if (env.MCP_RESOURCE_URL) return new URL(canonicalResourceUrl(env.MCP_RESOURCE_URL)).origin;
  if (env.VERCEL_PROJECT_PRODUCTION_URL) return new URL(canonicalResourceUrl(`https://${env.VERCEL_PROJECT_PRODUCTION_URL}`)).origin;
  return undefined;
}

/** A resource's canonical URL as the configuration names it, if it does: its own `url`, else the configured origin with its path. */
export function configuredResourceUrl(resource: ResourceLocation, env: ResourceUrlEnv): string | undefined {
  if (resource.url) return canonicalResourceUrl(resource.url);
  const origin = configuredOrigin(env);
  return origin ? canonicalResourceUrl(`${origin}${resource.path}`) : undefined;
}

/** The development default: this machine, on the port the server listens on. */
function localResourceUrl(resource: ResourceLocation, env: Pick<Env, "PORT">): string {
  return canonicalResourceUrl(`http://localhost:${env.PORT ?? 3000}${resource.path}`);
}

/** The endpoint's URL for one request, and the request header fields it was taken from besides Host. */
export interface RequestResourceUrl {
  url: string;
  /** For Vary (RFC 9111 §4.1): empty when the URL is configured, or taken from Host alone. */
  varyOn: readonly string[];
}

/**
 * A resource's URL as a page or discovery document should show it: the configured canonical URL
 * when there is one (the tokens' audience), else the origin the request reached this app at as
 * trusted sources tell it (lib/http/request-origin.ts), else the development default.
 */
export function resourceUrlForRequest(
  resource: ResourceLocation,
  env: ResourceUrlEnv & Pick<Env, "PORT" | "MCP_TRUSTED_PROXIES" | "VERCEL">,
  headers: Pick<Headers, "get">,
): RequestResourceUrl {
  const configured = configuredResourceUrl(resource, env);
  if (configured) return { url: configured, varyOn: [] };
  const reached = requestOriginOf(headers, clientAddressPolicyOf(env));
  return { url: reached.origin ? canonicalResourceUrl(`${reached.origin}${resource.path}`) : localResourceUrl(resource, env), varyOn: reached.varyOn };
}

function resourceUrlOf(resource: ResourceLocation, env: Env, production: boolean, builtin: boolean, problems: string[]): string {
  const configured = configuredResourceUrl(resource, env);
  if (configured) return configured;
  if (production && !builtin) {
    throw new AuthConfigError(`MCP_RESOURCE_URL is required in production: the canonical https URL of ${resource.path} (the tokens' audience)`);
  }
  if (production) {
    problems.push(
      `MCP_RESOURCE_URL is not set: the canonical URL of ${resource.path}, https (or http on this machine: ${localResourceUrl(resource, { PORT: undefined })}), the tokens' audience and the issuer's origin`,
    );
  }
  return localResourceUrl(resource, env);
}

/** What the built-in authorization server needs in production, each missing piece in words naming its variable. */
function builtinProblems(env: Env, production: boolean): string[] {
  const problems: string[] = [];
  if (production && !env.BETTER_AUTH_SECRET) problems.push("BETTER_AUTH_SECRET is not set: the built-in authorization server needs a secret of at least 32 characters (openssl rand -base64 32)");
  if (env.VERCEL && !env.DATABASE_URL) problems.push("DATABASE_URL is not set: on Vercel the embedded database cannot be written; add a Postgres database (Storage → Marketplace) and redeploy");
  return problems;
}

/**
 * Why no one can sign in on this deployment, naming each variable to set; undefined when sign-in
 * works. The one wording for every refusal it causes (the MCP endpoint, the authorization
 * endpoints, the /.well-known documents).
 */
export function signInUnavailable(settings: Pick<AuthSettings, "problems">): string | undefined {
  return settings.problems.length > 0 ? `Sign-in is not available: ${settings.problems.join("; ")}` : undefined;
}

/**
 * The settings of `resource` as a protected resource, from the environment: its issuer (the
 * built-in authorization server, or MCP_AUTH_ISSUER), its audience, its metadata's fields.
 */
export function resolveAuthSettings(env: Env, scopes: ScopeCatalog, resource: ProtectedResource): AuthSettings {
  const production = env.NODE_ENV === "production";
  const builtin = env.MCP_AUTH_ISSUER === undefined;
  const badAlgorithms = env.MCP_AUTH_ALGORITHMS.filter((a) => !ASYMMETRIC.test(a));
  if (badAlgorithms.length > 0) {
    throw new AuthConfigError(`MCP_AUTH_ALGORITHMS accepts asymmetric algorithms only (got ${badAlgorithms.join(", ")}); HS256 is enabled by MCP_AUTH_HS256_SECRET`);
  }
  if (env.MCP_AUTH_HS256_SECRET && builtin) throw new AuthConfigError("MCP_AUTH_HS256_SECRET needs MCP_AUTH_ISSUER (the issuer the shared-secret tokens name)");
  const implicitScopes = resource.implicitScopes ?? [];
  const unknownImplicit = implicitScopes.filter((s) => !scopes.some((d) => d.name === s));
  if (unknownImplicit.length > 0) throw new AuthConfigError(`the implicit scopes of ${resource.path} (MCP_AUTH_IMPLICIT_SCOPES for the primary endpoint) name scopes it does not have: ${unknownImplicit.join(", ")}`);

  if (!resource.path.startsWith("/")) throw new AuthConfigError(`the resource's path must start with "/" (got ${JSON.stringify(resource.path)})`);

  const problems = builtin ? builtinProblems(env, production) : [];
  const resourceUrl = resourceUrlOf(resource, env, production, builtin, problems);
  const parsed = new URL(resourceUrl);
  const origin = parsed.origin;
  // The built-in server's issuer is this origin, and an OAuth 2.1 issuer is https (loopback aside):
  // better-auth would publish the https form, which is not the issuer the resource metadata names,
  // and clients refuse the mismatch (RFC 8414 §3.3). Say so instead.
  if (builtin && parsed.protocol === "http:" && !isLoopbackHost(parsed.hostname)) {
    problems.push(`MCP_RESOURCE_URL is http on a host other than this machine (${origin}): the built-in authorization server's issuer, its origin, must be https`);
  }
  return {
    // Production defaults to required; while the built-in server cannot issue tokens, the open
    // tools stay reachable (mixed) and everything else says what is missing.
    mode: env.MCP_AUTH_MODE ?? (production && problems.length === 0 ? "required" : "mixed"),
    resourceUrl,
    resourceMetadataUrl: protectedResourceMetadataUrl(resourceUrl),
    resourceName: resource.name,
    resourceDocumentation: resource.documentation ?? `${origin}/`,
    scopes,
    issuer: builtin ? { kind: "builtin", issuer: origin } : { kind: "external", issuer: env.MCP_AUTH_ISSUER as string, jwksUrl: env.MCP_AUTH_JWKS_URL },
    problems,
    audience: resource.audience ?? resourceUrl,
    algorithms: env.MCP_AUTH_ALGORITHMS,
    hs256Secret: env.MCP_AUTH_HS256_SECRET,
    clockToleranceSeconds: env.MCP_AUTH_CLOCK_TOLERANCE_SECONDS,
    maxTokenAgeSeconds: env.MCP_AUTH_MAX_TOKEN_AGE_SECONDS,
    jwks: { cooldownMs: env.MCP_AUTH_JWKS_COOLDOWN_MS, cacheMaxAgeMs: env.MCP_AUTH_JWKS_CACHE_MAX_AGE_MS, timeoutMs: env.MCP_AUTH_JWKS_TIMEOUT_MS },
    implicitScopes,
  };
}
