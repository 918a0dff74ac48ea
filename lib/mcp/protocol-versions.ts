/**
 * The protocol revisions this server speaks, newest first. One place defines them; everything
 * else asks the helpers below instead of comparing strings.
 */
export const SESSION_ERA_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export type SessionEraVersion = (typeof SESSION_ERA_VERSIONS)[number];

export const LATEST_SESSION_ERA_VERSION: SessionEraVersion = "2025-11-25";

/**
 * basic/transports (2025-06-18 and later): with no MCP-Protocol-Version header and no other way to
 * know, "the server SHOULD assume protocol version 2025-03-26".
 */
export const DEFAULT_ASSUMED_VERSION: SessionEraVersion = "2025-03-26";

export const SUPPORTED_VERSIONS: readonly string[] = SESSION_ERA_VERSIONS;

export function isSupportedVersion(version: string): version is SessionEraVersion {
  return (SESSION_ERA_VERSIONS as readonly string[]).includes(version);
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
  return version >= "2025-11-25";
}

/** Lifecycle version negotiation: echo a supported version, else offer the latest we support. */
export function negotiateVersion(requested: unknown): SessionEraVersion {
  return typeof requested === "string" && isSupportedVersion(requested) ? requested : LATEST_SESSION_ERA_VERSION;
}
