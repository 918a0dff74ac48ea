import { ErrorCode, McpError } from "../jsonrpc";
import type { AuthInfo } from "./auth-info";

/**
 * What the MCP core asks of authentication (basic/authorization): who the caller is, and how a
 * refusal is worded. It lives here, below lib/mcp, because both the resource server that
 * implements it and the core that uses it need it; imports then only run downhill.
 */

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
