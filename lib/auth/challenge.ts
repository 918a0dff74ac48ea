import type { ChallengeDetails } from "./access-control";

/**
 * WWW-Authenticate values (RFC 6750 §3, RFC 9728 §5.1): always the resource_metadata URL so a
 * client can discover the authorization server, the scopes the refused operation needs, and the
 * error code when a token was sent.
 */

/** An RFC 7230 quoted-string: backslash-escape `\\` and `"`; drop control characters. */
function quoted(value: string): string {
  return `"${value.replace(/[\u0000-\u001f\u007f]/g, "").replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function bearerChallenge(resourceMetadataUrl: string, details: ChallengeDetails): string {
  const params: string[] = [`resource_metadata=${quoted(resourceMetadataUrl)}`];
  if (details.scopes && details.scopes.length > 0) params.push(`scope=${quoted(details.scopes.join(" "))}`);
  if (details.error) params.push(`error=${quoted(details.error)}`);
  if (details.description) params.push(`error_description=${quoted(details.description)}`);
  return `Bearer ${params.join(", ")}`;
}
