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
export function decideAccess(schemes: readonly SecurityScheme[], auth: AuthInfo | undefined): AccessDecision {
  // Runs twice per tools/call (authorization, then the call): no arrays or objects on the way to "allow".
  let open = false;
  let first: readonly string[] | undefined;
  let granted = false;
  for (const scheme of schemes) {
    if (scheme.type === "noauth") {
      open = true;
      continue;
    }
    first ??= scheme.scopes ?? NO_SCOPES;
    if (auth && !granted) granted = hasScopes(auth, scheme.scopes ?? NO_SCOPES);
  }
  if (open && (!auth || first === undefined)) return ALLOW;
  const needed = first ?? NO_SCOPES;
  if (!auth) return { kind: "sign_in", scopes: needed };
  if (granted || open) return ALLOW;
  return { kind: "step_up", scopes: needed };
}

export type AccessDecision = { kind: "allow" } | { kind: "sign_in" | "step_up"; scopes: readonly string[] };

const ALLOW: AccessDecision = Object.freeze({ kind: "allow" });
const NO_SCOPES: readonly string[] = Object.freeze([]);

/** The isError result an anonymous call of an oauth2 tool gets in mixed mode (ChatGPT links accounts on it). */
export function signInResult(access: AccessControl, tool: string, scopes: readonly string[]): CallToolResult & { isError: true } {
  const text = `Sign in to use ${tool}: it needs access to your account (${scopes.join(" ") || "a bearer token"}).${access.notice ? ` ${access.notice}` : ""}`;
  // The Apps SDK's account-linking trigger: an insufficient_scope challenge in the result's _meta.
  return toolErrorResult("sign_in_required", text, {
    meta: { [WWW_AUTHENTICATE_META_KEY]: [access.challenge({ error: "insufficient_scope", scopes, description: "You need to sign in to continue" })] },
  });
}
