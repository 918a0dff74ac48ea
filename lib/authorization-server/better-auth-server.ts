import { betterAuth } from "better-auth/minimal";
import { createAuthMiddleware } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { genericOAuth, jwt } from "better-auth/plugins";
import { oauthProvider } from "@better-auth/oauth-provider";
import { getPrisma } from "../db/prisma";
import { addKeyRow, developmentSecret, readKeyRows, SIGNING_ALG } from "./key-file";
import { KEY_GRACE_SECONDS } from "./published-keys";
import { AUTH_BASE_PATH, AuthPage, CLIENT_ADDRESS_HEADER } from "./paths";
import { keepRefreshTokenScope, tokenStorage } from "./refresh-scope";
import { endFamilyOfRacedRefresh } from "./refresh-reuse";
import { requestCounter } from "./request-counts";
import { requestHooks } from "./request-hooks";
import { signInAttempts } from "./sign-in-attempts";
import { offeredScopeNames, type AuthServerSettings } from "./settings";

/**
 * The built-in OAuth 2.1 authorization server: better-auth with its OAuth provider plugin, on
 * this project's database through its Prisma adapter. Everything it keeps (users, sessions,
 * clients, codes, consents, refresh tokens, keys, sign-in counters) is in that database, so a
 * flow whose steps land on different instances completes.
 *
 * What it is set to, and why:
 * - issuer = the app's origin, so its metadata sits at the root well-known paths clients try;
 * - dynamic client registration open to anyone (ChatGPT and Claude register themselves), public
 *   clients and confidential ones alike: Claude's hosted connector asks for client_secret_post;
 * - PKCE S256 for every client (better-auth refuses `plain` and a missing challenge);
 * - one resource, this MCP endpoint: every access token is a JWT whose `aud` is it;
 * - refresh tokens rotate; a reused one revokes the family (no grace window);
 * - keys rotate every 90 days, the old one published 30 days more.
 *
 * It is its own module, loaded by auth-server.ts on first use: better-auth and its plugins are
 * some 600 KB of code that neither server start (instrumentation.ts) nor an MCP request — whose
 * token check reads the keys directly (published-keys.ts) — needs.
 */

const KEY_ROTATION_SECONDS = 90 * 24 * 3600;

/** The window of the per-minute limits (token, revocation, registration), and of better-auth's longest defaults. */
const MINUTE = 60;

/** @better-auth/oauth-provider's client-management endpoints this app does not offer (clients register at /oauth2/register). */
const UNUSED_CLIENT_ENDPOINTS = [
  "/oauth2/create-client",
  "/oauth2/update-client",
  "/oauth2/delete-client",
  "/oauth2/client/rotate-secret",
  "/oauth2/get-client",
  "/oauth2/get-clients",
] as const;

// One configuration literal, on purpose over 80 lines: AuthServer's type is inferred from it
// (plugins included), and better-auth's options read best side by side in one object.
export async function buildAuthServer(settings: AuthServerSettings) {
  const secret = settings.secret ?? (settings.keysDir ? await developmentSecret(settings.keysDir) : undefined);
  if (!secret) throw new Error("BETTER_AUTH_SECRET is not set");
  const keysDir = settings.keysDir;
  const prisma = await getPrisma();
  const scopeNames = offeredScopeNames(settings);
  const counter = requestCounter(Math.max(MINUTE, settings.signIn.windowSeconds));
  return betterAuth({
    appName: settings.resourceName,
    baseURL: settings.issuer,
    basePath: AUTH_BASE_PATH,
    secret,
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    trustedOrigins: [settings.issuer],
    emailAndPassword: { enabled: true, disableSignUp: !settings.signUp.open, autoSignIn: true },
    socialProviders: {
      ...(settings.github ? { github: { ...settings.github, disableSignUp: !settings.signUp.open } } : {}),
      ...(settings.google ? { google: { ...settings.google, disableSignUp: !settings.signUp.open } } : {}),
    },
    rateLimit: {
      enabled: settings.addressLimits,
      // Fixed windows in the database (request-counts.ts says why not better-auth's own storage).
      customStorage: counter.storage,
      customRules: {
        "/sign-in/email": { window: settings.signIn.windowSeconds, max: settings.signIn.attemptsPerAddress },
        "/sign-up/email": { window: settings.signIn.windowSeconds, max: settings.signIn.attemptsPerAddress },
      },
    },
    onAPIError: { errorURL: AuthPage.Error },
    // The provider's session endpoints for managing clients: nothing in this app calls them, and
    // any signed-in person could reach them past registration's bounds and rate limit. Absent: 404.
    // OpenID Connect's userinfo too: this server is no OpenID provider (its openid-configuration
    // is 404, and no token can carry `openid`), and the endpoint answered in shapes RFC 6750 does not know.
    disabledPaths: [...UNUSED_CLIENT_ENDPOINTS, "/oauth2/userinfo"],
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    telemetry: { enabled: false },
    hooks: {
      before: requestHooks(settings),
      after: createAuthMiddleware(async (ctx) => {
        await keepRefreshTokenScope(ctx);
        await endFamilyOfRacedRefresh({ path: ctx.path, body: ctx.body, returned: ctx.context.returned, adapter: ctx.context.adapter });
      }),
    },
    plugins: [
      // Before the provider: its after-hooks on sign-in may replace the answer this one reads.
      signInAttempts(settings, counter),
      jwt({
        jwt: { issuer: settings.issuer },
        disableSettingJwtHeader: true,
        jwks: {
          keyPairConfig: { alg: SIGNING_ALG },
          rotationInterval: KEY_ROTATION_SECONDS,
          gracePeriod: KEY_GRACE_SECONDS,
          // Keys in a folder (development, tests) are read by `npm run token` too: plain JWKs there.
          disablePrivateKeyEncryption: keysDir !== undefined,
        },
        ...(keysDir
          ? {
              adapter: {
                getJwks: () => readKeyRows(keysDir),
                createJwk: (row) => addKeyRow(keysDir, row),
              },
            }
          : {}),
      }),
      oauthProvider({
        loginPage: AuthPage.SignIn,
        consentPage: AuthPage.Consent,
        scopes: scopeNames,
        resources: [{ identifier: settings.resourceUrl, name: settings.resourceName, allowedScopes: scopeNames }],
        clientRegistrationDefaultResources: [settings.resourceUrl],
        allowDynamicClientRegistration: true,
        allowUnauthenticatedClientRegistration: true,
        accessTokenExpiresIn: settings.accessTokenTtlSeconds,
        refreshTokenExpiresIn: settings.refreshTokenTtlSeconds,
        refreshTokenReuseInterval: 0,
        storeTokens: tokenStorage,
        codeExpiresIn: 600,
        // Per address, counted in the database; the rest keep better-auth's defaults (settings.ts says why these two differ).
        rateLimit: {
          token: { window: MINUTE, max: settings.perMinute.token },
          // Hosts revoke from the same servers when a person disconnects: a 429 there would leave the grant alive.
          revoke: { window: MINUTE, max: settings.perMinute.token },
          register: { window: MINUTE, max: settings.perMinute.register },
        },
      }),
      ...(settings.oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: "oidc",
                  discoveryUrl: `${settings.oidc.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
                  clientId: settings.oidc.clientId,
                  clientSecret: settings.oidc.clientSecret,
                  scopes: ["openid", "email", "profile"],
                  pkce: true,
                  disableSignUp: !settings.signUp.open,
                },
              ],
            }),
          ]
        : []),
    ],
  });
}

export type AuthServer = Awaited<ReturnType<typeof buildAuthServer>>;
