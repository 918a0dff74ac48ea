import type { AccessControl } from "../../auth/access-control";
import type { AuthInfo } from "../../auth/auth-info";
import type { CallToolResult } from "../protocol/types";
import { toolErrorResult } from "../runtime/tool-error";

/**
 * Who may call what (basic/authorization). How a request's credentials are checked is
 * lib/auth's business (its AccessControl interface, lib/auth/access-control.ts); this module
 * decides what a caller may reach.
 *
 * Tools declare `securitySchemes` as ChatGPT's Apps SDK reads them: `noauth` (callable
 * anonymously) and/or `oauth2` with the scopes a token must carry. Resources, templates and
 * prompts may name the scopes they need.
 */

export type SecurityScheme = { type: "noauth" } | { type: "oauth2"; scopes?: readonly string[] };

/** A tool without declared schemes can be called by anyone. */
export const NO_AUTH: readonly SecurityScheme[] = [{ type: "noauth" }];

/** The `_meta` key ChatGPT reads on an isError tool result to start account linking. */
export const WWW_AUTHENTICATE_META_KEY = "mcp/www_authenticate";

export function hasScopes(auth: AuthInfo, scopes: readonly string[]): boolean {
  return scopes.every((s) => auth.scopes.includes(s));
}

/**
 * What `auth` may do with something protected by `schemes`:
 * - allow: anonymous and noauth is listed, or a token with one oauth2 scheme's scopes (or noauth);
 * - sign_in: anonymous, and only oauth2 schemes are listed (scopes: the first scheme's);
 * - step_up: a token without the scopes any oauth2 scheme needs, and no noauth fallback.
 */
export function decideAccess(schemes: readonly SecurityScheme[], auth: AuthInfo | undefined): { kind: "allow" } | { kind: "sign_in" | "step_up"; scopes: readonly string[] } {
  const open = schemes.some((s) => s.type === "noauth");
  const oauth = schemes.filter((s): s is Extract<SecurityScheme, { type: "oauth2" }> => s.type === "oauth2");
  if (open && (!auth || oauth.length === 0)) return { kind: "allow" };
  const needed = oauth[0]?.scopes ?? [];
  if (!auth) return { kind: "sign_in", scopes: needed };
  if (oauth.some((s) => hasScopes(auth, s.scopes ?? []))) return { kind: "allow" };
  return open ? { kind: "allow" } : { kind: "step_up", scopes: needed };
}

/** The isError result an anonymous call of an oauth2 tool gets in mixed mode (ChatGPT links accounts on it). */
export function signInResult(access: AccessControl, tool: string, scopes: readonly string[]): CallToolResult & { isError: true } {
  const text = `Sign in to use ${tool}: it needs access to your account (${scopes.join(" ") || "a bearer token"}).${access.notice ? ` ${access.notice}` : ""}`;
  // The Apps SDK's account-linking trigger: an insufficient_scope challenge in the result's _meta.
  return toolErrorResult("sign_in_required", text, {
    meta: { [WWW_AUTHENTICATE_META_KEY]: [access.challenge({ error: "insufficient_scope", scopes, description: "You need to sign in to continue" })] },
  });
}
