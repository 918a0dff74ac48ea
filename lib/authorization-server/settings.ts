import type { Env } from "../config/env";
import type { AuthSettings } from "../auth/auth-settings";
import type { ScopeCatalog } from "../auth/scope-catalog";
import { OFFLINE_ACCESS } from "./paths";

/**
 * The built-in authorization server's configuration, resolved from the environment and the
 * resource server's settings (whose issuer it is). A provider appears only when its client id
 * and secret are both set (lib/config/env.ts checks they come together).
 */
export interface AuthServerSettings {
  /** The issuer identifier: the origin of the resource URL (metadata at the root well-known paths). */
  issuer: string;
  resourceUrl: string;
  resourceName: string;
  scopes: ScopeCatalog;
  /** Undefined outside production when BETTER_AUTH_SECRET is unset: the keys folder's development secret. */
  secret: string | undefined;
  /** Keys in this folder instead of the database. */
  keysDir: string | undefined;
  signUp: { open: boolean; domains: readonly string[] };
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  signIn: { attemptsPerAccount: number; attemptsPerAddress: number; windowSeconds: number };
  /** better-auth's per-address endpoint limits (off only for tests that make many clients from one address). */
  addressLimits: boolean;
  /** Per address a minute, when addressLimits is on: token requests, client registrations. */
  perMinute: { token: number; register: number };
  github?: { clientId: string; clientSecret: string };
  google?: { clientId: string; clientSecret: string };
  oidc?: { issuer: string; clientId: string; clientSecret: string; name: string };
}

/** Every scope the server offers: the catalog's, and offline_access for refresh tokens. */
export function offeredScopeNames(settings: AuthServerSettings): string[] {
  return [...settings.scopes.map((s) => s.name), OFFLINE_ACCESS];
}

/** One address may be many people (an office, a phone carrier): it gets several accounts' worth. */
const ADDRESS_TO_ACCOUNT_RATIO = 5;

export function resolveAuthServerSettings(env: Env, auth: AuthSettings): AuthServerSettings {
  const production = env.NODE_ENV === "production";
  const pair = (id: string | undefined, secret: string | undefined) => (id && secret ? { clientId: id, clientSecret: secret } : undefined);
  const github = pair(env.GITHUB_CLIENT_ID, env.GITHUB_CLIENT_SECRET);
  const google = pair(env.GOOGLE_CLIENT_ID, env.GOOGLE_CLIENT_SECRET);
  const oidcClient = pair(env.MCP_AUTH_OIDC_CLIENT_ID, env.MCP_AUTH_OIDC_CLIENT_SECRET);
  return {
    issuer: auth.issuer.issuer,
    resourceUrl: auth.resourceUrl,
    resourceName: auth.resourceName,
    scopes: auth.scopes,
    secret: env.BETTER_AUTH_SECRET,
    keysDir: env.MCP_AUTH_KEYS_DIR ?? (production ? undefined : ".data/auth-keys"),
    signUp: { open: env.MCP_AUTH_SIGNUP === "open", domains: env.MCP_AUTH_SIGNUP_DOMAINS.map((d) => d.toLowerCase()) },
    accessTokenTtlSeconds: env.MCP_AUTH_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: env.MCP_AUTH_REFRESH_TOKEN_TTL_SECONDS,
    signIn: {
      attemptsPerAccount: env.MCP_AUTH_SIGN_IN_ATTEMPTS,
      attemptsPerAddress: env.MCP_AUTH_SIGN_IN_ATTEMPTS * ADDRESS_TO_ACCOUNT_RATIO,
      windowSeconds: env.MCP_AUTH_SIGN_IN_WINDOW_SECONDS,
    },
    addressLimits: env.MCP_AUTH_RATE_LIMITS,
    perMinute: { token: env.MCP_AUTH_TOKEN_REQUESTS_PER_MINUTE, register: env.MCP_AUTH_REGISTRATIONS_PER_MINUTE },
    ...(github ? { github } : {}),
    ...(google ? { google } : {}),
    ...(env.MCP_AUTH_OIDC_ISSUER && oidcClient ? { oidc: { issuer: env.MCP_AUTH_OIDC_ISSUER, name: env.MCP_AUTH_OIDC_NAME, ...oidcClient } } : {}),
  };
}

/** Whether `email` may open an account under the sign-up policy; a reason when not. */
export function signUpRefusal(settings: AuthServerSettings, email: string): string | undefined {
  if (!settings.signUp.open) return "New accounts are closed on this server: sign in with an existing account.";
  if (settings.signUp.domains.length === 0) return undefined;
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return settings.signUp.domains.includes(domain) ? undefined : `Accounts can be created only for addresses at ${settings.signUp.domains.join(", ")}.`;
}
