import type { JSONWebKeySet } from "jose";
import type { AuthServer } from "./better-auth-server";
import { publishedJwks, storedKeyRows } from "./published-keys";
import type { AuthServerSettings } from "./settings";

export type { AuthServer } from "./better-auth-server";

export interface BuiltinAuthorizationServer {
  settings: AuthServerSettings;
  /** better-auth (better-auth-server.ts), loaded and made on first use: it needs the database client. */
  auth(): Promise<AuthServer>;
  /** The keys tokens are verified with: the published JWKS. */
  jwks(): Promise<JSONWebKeySet>;
  /** RFC 8414 authorization server metadata. */
  metadata(): Promise<Record<string, unknown>>;
}

export function createBuiltinAuthorizationServer(settings: AuthServerSettings): BuiltinAuthorizationServer {
  let instance: Promise<AuthServer> | undefined;
  const auth = () =>
    (instance ??= import("./better-auth-server").then(({ buildAuthServer }) => buildAuthServer(settings)).catch((thrown: unknown) => {
      instance = undefined;
      throw thrown;
    }));
  return {
    settings,
    auth,
    async jwks() {
      // Read directly (published-keys.ts); with no key stored yet, better-auth makes the first.
      const rows = await storedKeyRows(settings.keysDir);
      if (rows.length === 0) return (await (await auth()).api.getJwks()) as JSONWebKeySet;
      return publishedJwks(rows);
    },
    async metadata() {
      // Bearer tokens only: /api/mcp takes no DPoP proof, so no DPoP algorithm is offered
      // (request-hooks.ts and the auth route drop what would ask for a bound token).
      // Nor back-channel logout: that is OpenID Connect's, for ID tokens this server does not issue.
      const {
        dpop_signing_alg_values_supported: _dpop,
        backchannel_logout_supported: _logout,
        backchannel_logout_session_supported: _logoutSession,
        ...metadata
      } = await (await auth()).api.getOAuthServerConfig();
      // Public clients revoke with their client_id alone (RFC 7009 §2.1, §5), which better-auth
      // accepts but does not list: "none" as RFC 8414 §2 names it.
      const revocation = metadata.revocation_endpoint_auth_methods_supported;
      // RFC 8414 §2 lists the grants the server supports: client_credentials is not one here (a
      // registered client is never given it, so no token is ever issued for one).
      const grants = metadata.grant_types_supported;
      return {
        ...metadata,
        ...(Array.isArray(grants) ? { grant_types_supported: grants.filter((grant) => grant !== "client_credentials") } : {}),
        revocation_endpoint_auth_methods_supported: [...new Set([...(Array.isArray(revocation) ? revocation : []), "none"])],
      };
    },
  };
}
