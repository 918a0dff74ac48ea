import type { AuthInfo } from "../../auth/auth-info";
import { ErrorCode, McpError } from "../../jsonrpc";
import type { Meta } from "../protocol/types";

/**
 * Who may call what (basic/authorization). The core knows only this interface: how a request's
 * credentials are checked (lib/auth verifies bearer JWTs) is the adapter's business.
 *
 * Tools declare `securitySchemes` as ChatGPT's Apps SDK reads them: `noauth` (callable
 * anonymously) and/or `oauth2` with the scopes a token must carry. Resources, templates and
 * prompts may name the scopes they need.
 */

export type SecurityScheme = { type: "noauth" } | { type: "oauth2"; scopes?: readonly string[] };

/** A tool without declared schemes can be called by anyone. */
export const NO_AUTH: readonly SecurityScheme[] = [{ type: "noauth" }];

export interface ChallengeDetails {
  /** RFC 6750 §3.1; absent when the request simply carried no token. */
  error?: "invalid_request" | "invalid_token" | "insufficient_scope";
  /** The scopes the refused operation needs (basic/authorization §scope selection). */
  scopes?: readonly string[];
  description?: string;
}

export interface AccessControl {
  /** required: every request needs a valid token. mixed: anonymous callers reach what needs none. */
  readonly mode: "required" | "mixed";
  /** Scopes named in the challenge to a request that carried no token at all. */
  readonly defaultScopes: readonly string[];
  /**
   * The caller of `request`, or undefined when it carries no credentials. Bad credentials throw
   * (see `unauthorized`): a token that fails verification never degrades to anonymous.
   */
  authenticate(request: Request): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** The WWW-Authenticate value (RFC 6750 §3) for a refusal. */
  challenge(details: ChallengeDetails): string;
  /**
   * Why signing in cannot work right now (a missing secret, naming its variable): every refusal
   * carries it, so whoever reads a 401 learns what the deployment lacks.
   */
  readonly notice?: string;
}

/** The `_meta` key ChatGPT reads on an isError tool result to start account linking. */
export const WWW_AUTHENTICATE_META_KEY = "mcp/www_authenticate";

/** 401 with the challenge (basic/authorization §error handling); seed 001's -32001 body. */
export function unauthorized(access: AccessControl, details: ChallengeDetails = {}, status = 401): McpError {
  const what = details.error === "invalid_token" ? "invalid or expired token" : details.error === "invalid_request" ? "malformed credentials" : "a bearer token is required";
  const message = `Unauthorized: ${what}${details.description ? ` (${details.description})` : ""}${access.notice ? `. ${access.notice}` : ""}`;
  return new McpError(ErrorCode.Unauthorized, message, details.scopes ? { requiredScopes: details.scopes } : undefined, status, {
    "WWW-Authenticate": access.challenge({ ...details, scopes: details.scopes ?? access.defaultScopes }),
  });
}

/** 403 insufficient_scope naming the scopes needed (basic/authorization §runtime insufficient scope). */
export function insufficientScope(access: AccessControl, scopes: readonly string[]): McpError {
  return new McpError(ErrorCode.Unauthorized, `Forbidden: this needs the scope${scopes.length === 1 ? "" : "s"} ${scopes.join(" ")}`, { requiredScopes: scopes }, 403, {
    "WWW-Authenticate": access.challenge({ error: "insufficient_scope", scopes }),
  });
}

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
export function signInResult(access: AccessControl, tool: string, scopes: readonly string[]): { content: { type: "text"; text: string }[]; isError: true; _meta: Meta } {
  return {
    content: [{ type: "text", text: `Sign in to use ${tool}: it needs access to your account (${scopes.join(" ") || "a bearer token"}).${access.notice ? ` ${access.notice}` : ""}` }],
    isError: true,
    // The Apps SDK's account-linking trigger: an insufficient_scope challenge in the result's _meta.
    _meta: { [WWW_AUTHENTICATE_META_KEY]: [access.challenge({ error: "insufficient_scope", scopes, description: "You need to sign in to continue" })] },
  };
}
