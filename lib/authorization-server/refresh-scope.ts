import { createHash } from "node:crypto";
import type { AuthHookContext } from "./hook-context";

/**
 * RFC 6749 §6: on a refresh the client may ask for a narrower access token, but a new refresh
 * token "MUST be identical in scope to that of the refresh token included by the client".
 * @better-auth/oauth-provider 1.7.5 issues the rotated refresh token with the narrowed scope
 * (createUserTokens stores effectiveScopes in both), and, when the narrowed scope leaves out
 * offline_access, with no refresh token at all while the presented one is already rotated away:
 * one narrowed refresh would shrink or end the grant for good. Two hooks put that right without
 * touching its code: before (request-hooks.ts), offline_access is kept in a narrowed request (the
 * client holds a refresh token, so its grant has it: nothing is widened); after (here), the new
 * refresh token's scopes are set back to the presented one's.
 */

/**
 * How refresh (and opaque access) tokens are stored: SHA-256, base64url without padding, which is
 * @better-auth/oauth-provider's own default ("hashed"), named here so the hook below finds the rows.
 */
export function storedTokenValue(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

export const tokenStorage = { hash: (token: string) => Promise.resolve(storedTokenValue(token)) };

interface RefreshRequest {
  refreshToken: string;
  scope: string;
}

/** A refresh that names a scope: only these can narrow anything. */
function narrowingRefresh(path: string, body: unknown): RefreshRequest | undefined {
  if (path !== "/oauth2/token" || typeof body !== "object" || body === null) return undefined;
  const { grant_type, refresh_token, scope } = body as Record<string, unknown>;
  if (grant_type !== "refresh_token" || typeof refresh_token !== "string" || typeof scope !== "string") return undefined;
  return { refreshToken: refresh_token, scope };
}

/** After a narrowing refresh: the new refresh token gets the presented one's scopes back. */
export async function keepRefreshTokenScope(ctx: AuthHookContext): Promise<void> {
  const refresh = narrowingRefresh(ctx.path, ctx.body);
  const returned = ctx.context.returned;
  if (!refresh || typeof returned !== "object" || returned === null || returned instanceof Error) return;
  const issued = (returned as { refresh_token?: unknown }).refresh_token;
  if (typeof issued !== "string") return;
  const presented = await ctx.context.adapter.findOne<{ scopes: string[] }>({ model: "oauthRefreshToken", where: [{ field: "token", value: storedTokenValue(refresh.refreshToken) }] });
  if (!presented) return;
  await ctx.context.adapter.update({ model: "oauthRefreshToken", where: [{ field: "token", value: storedTokenValue(issued) }], update: { scopes: presented.scopes } });
}
