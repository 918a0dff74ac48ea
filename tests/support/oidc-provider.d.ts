/**
 * oidc-provider ships no TypeScript declarations, and @types/oidc-provider is not among this
 * project's devDependencies, so strict TypeScript would refuse the import. This declares the
 * narrow part tests/support/oidc-test-provider.ts uses — written from lib/provider.js,
 * lib/helpers/defaults.js and lib/helpers/errors.js of 9.13.3 — and nothing more. (Should
 * @types/oidc-provider be added, delete this file.) A script file, no top-level import/export, so
 * that `declare module` declares the module instead of augmenting an untyped one.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  import type { JWK } from "jose";

  /** What `features.resourceIndicators.getResourceServerInfo` returns for a resource indicator. */
  export interface ResourceServerInfo {
    /** The scopes this resource server accepts, space-separated. */
    scope: string;
    /** The access token's `aud`; defaults to the resource indicator. */
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: "opaque" | "jwt";
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  /** The client model as the configuration callbacks receive it (only what the tests read). */
  export interface ProviderClient {
    readonly clientId: string;
  }

  /** koa's context; the tests never look inside. */
  export type KoaContextWithOIDC = object;

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface Configuration {
    /** Private JWKs; each signing key's kid goes into the JWT header. */
    jwks?: { keys: JWK[] };
    scopes?: string[];
    responseTypes?: string[];
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: ProviderClient) => boolean };
    findAccount?: (ctx: KoaContextWithOIDC, sub: string) => Account | undefined | Promise<Account | undefined>;
    ttl?: Record<string, number | ((ctx: KoaContextWithOIDC, token: object, client: ProviderClient) => number)>;
    features?: {
      devInteractions?: { enabled: boolean };
      registration?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: KoaContextWithOIDC, client: ProviderClient, oneOf?: string[]) => string | string[] | undefined | Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: KoaContextWithOIDC, model: object) => boolean | Promise<boolean>;
        getResourceServerInfo: (ctx: KoaContextWithOIDC, resourceIndicator: string, client: ProviderClient) => ResourceServerInfo | Promise<ResourceServerInfo>;
      };
    };
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    /** A node:http request listener (koa's Application#callback). */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }

  export namespace errors {
    /** RFC 8707 invalid_target: the resource indicator is unknown or not allowed. */
    class InvalidTarget extends Error {
      constructor(description?: string);
    }
  }

  export default Provider;
}
