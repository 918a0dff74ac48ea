/**
 * The protocol revisions this server speaks, newest first, and the two eras they form. One place
 * defines them; everything else asks the helpers below instead of comparing strings.
 *
 * - Session era (2025-03-26, 2025-06-18, 2025-11-25): initialize handshake, optional sessions.
 * - Stateless era (2026-07-28): every request carries its version and client capabilities in
 *   `_meta`; no handshake, no session (basic/versioning).
 */
export const SESSION_ERA_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export type SessionEraVersion = (typeof SESSION_ERA_VERSIONS)[number];

export const STATELESS_ERA_VERSIONS = ["2026-07-28"] as const;
export type StatelessEraVersion = (typeof STATELESS_ERA_VERSIONS)[number];

export const LATEST_SESSION_ERA_VERSION: SessionEraVersion = "2025-11-25";

/** Every version we speak, newest first (server/discover `supportedVersions`, -32022 `data.supported`). */
export const ALL_SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_ERA_VERSIONS, ...SESSION_ERA_VERSIONS];

/**
 * Versions a client may legitimately send on the session path. 2024-11-05 clients send no header,
 * but the SDKs know the string, so it is recognised as "legacy" (and then refused as unsupported).
 */
const LEGACY_VERSIONS: readonly string[] = [...SESSION_ERA_VERSIONS, "2024-11-05", "2024-10-07"];

/**
 * basic/transports (2025-06-18 and later): with no MCP-Protocol-Version header and no other way to
 * know, "the server SHOULD assume protocol version 2025-03-26".
 */
export const DEFAULT_ASSUMED_VERSION: SessionEraVersion = "2025-03-26";

export const SUPPORTED_VERSIONS: readonly string[] = SESSION_ERA_VERSIONS;

export function isSupportedVersion(version: string): version is SessionEraVersion {
  return (SESSION_ERA_VERSIONS as readonly string[]).includes(version);
}

export function isStatelessEraVersion(version: string): version is StatelessEraVersion {
  return (STATELESS_ERA_VERSIONS as readonly string[]).includes(version);
}

/** A header value that belongs to the session era (including versions we no longer serve). */
export function isLegacyVersion(version: string): boolean {
  return LEGACY_VERSIONS.includes(version);
}

/** JSON-RPC batching exists only in 2025-03-26; 2025-06-18 removed it (changelog #416). */
export function allowsBatching(version: string): boolean {
  return version === "2025-03-26";
}

/**
 * 2025-11-25 basic/transports §"Resumability": the server SHOULD prime a stream with an event
 * that has an id and empty data. Older clients may not expect a data-less event.
 */
export function primesStreams(version: string): boolean {
  return version >= "2025-11-25" && isSupportedVersion(version);
}

/** Lifecycle version negotiation: echo a supported version, else offer the latest we support. */
export function negotiateVersion(requested: unknown): SessionEraVersion {
  return typeof requested === "string" && isSupportedVersion(requested) ? requested : LATEST_SESSION_ERA_VERSION;
}

/**
 * server/tools §error handling. Through 2025-06-18 invalid arguments are a protocol error
 * (-32602); from 2025-11-25 on (SEP-1303) input validation errors are tool execution errors: an
 * isError result the model reads and corrects itself from.
 */
export function reportsInvalidArgumentsAsToolErrors(version: string): boolean {
  return isSince20251125(version);
}

/**
 * Whether an error response may leave out its `id`: the 2025-11-25 schema made
 * JSONRPCErrorResponse.id optional; before it, an error that names no request says so with
 * `"id": null` (JSON-RPC 2.0 §5).
 */
export function allowsErrorResponsesWithoutId(version: string): boolean {
  return isSince20251125(version);
}

/** `resource_link` content blocks arrived in 2025-06-18 (its changelog; server/tools §resource links). */
export function hasResourceLinks(version: string): boolean {
  return version !== "2025-03-26";
}

/** A tool's `execution` (taskSupport) is 2025-11-25's alone: 2026-07-28's Tool has none (SEP-2663). */
export function hasToolExecution(version: string): boolean {
  return version === "2025-11-25";
}

/** `icons` on serverInfo, tools, resources and prompts arrived in 2025-11-25 (basic §icons). */
export function hasIcons(version: string): boolean {
  return isSince20251125(version);
}

/** elicitation/create arrived in 2025-06-18 (client/elicitation); 2025-03-26 has no such request. */
export function hasElicitation(version: string): boolean {
  return version === "2025-06-18" || isSince20251125(version);
}

/**
 * Elicitation modes arrived in 2025-11-25 (client/elicitation §capabilities): URL mode, the
 * request's `mode` field and the capability's `form`/`url` keys. 2025-06-18 elicits forms only,
 * without `mode` (its ElicitRequest params are `message` and `requestedSchema`).
 */
export function hasElicitationModes(version: string): boolean {
  return isSince20251125(version);
}

/** 2025-11-25 or a later revision we speak. */
function isSince20251125(version: string): boolean {
  return version === "2025-11-25" || isStatelessEraVersion(version);
}
