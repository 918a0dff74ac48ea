import { loadEnv } from "../config/env";
import { resourceUrlForRequest } from "../auth/auth-settings";
import { worldcrafterResource } from "./resource";
import type { HitKind } from "./data/search";

/**
 * The page a person opens for a record (app/records/[kind]/[id]): the `url` that search and fetch
 * cite (seed 002 §company knowledge: a link the user can follow). It is on the deployment's public
 * origin — MCP_RESOURCE_URL's, or Vercel's production host — https in any real deployment; the
 * page shows the record to its owner only. The MCP resource URI stays in fetch's metadata.
 */

export const RECORD_KINDS: readonly HitKind[] = ["world", "character", "location"];

export const RECORD_PAGE_PATH = "/records";

export function isRecordKind(value: string): value is HitKind {
  return (RECORD_KINDS as readonly string[]).includes(value);
}

/** The path of a record's page, on this origin. */
export function recordPath(kind: HitKind, id: string): string {
  return `${RECORD_PAGE_PATH}/${kind}/${encodeURIComponent(id)}`;
}

/** The absolute URL of a record's page on the deployment's public origin. */
export function recordUrl(kind: HitKind, id: string): string {
  const env = loadEnv();
  const origin = new URL(resourceUrlForRequest(worldcrafterResource(env), env, new Headers()).url).origin;
  return `${origin}${recordPath(kind, id)}`;
}
