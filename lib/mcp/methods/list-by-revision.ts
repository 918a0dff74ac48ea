import { hasIcons, hasToolExecution } from "../protocol/protocol-versions";
import { preserialize, serializedOf } from "../../jsonrpc";

/**
 * A list's items as the negotiated revision defines them: a strict client validates them against
 * its revision's schema (outside protocol audit).
 * - `icons` (serverInfo, tools, resources, templates, prompts) exist from 2025-11-25 on (basic §icons).
 * - A tool's `execution` exists in 2025-11-25 alone: 2026-07-28's Tool has none (its tasks
 *   extension lets the server decide per request, SEP-2663), and older revisions had no tasks.
 */

/** Answers per page and revision, for the registry's pages (preserialized, so stable objects). */
const older = new WeakMap<object, Map<string, Record<string, unknown>>>();
const foreignByVersion = new Map<string, readonly string[]>();

/** The keys of an item `version` does not define (worked out once per revision). */
function foreignKeys(version: string): readonly string[] {
  let keys = foreignByVersion.get(version);
  if (!keys) {
    keys = [...(hasIcons(version) ? [] : ["icons"]), ...(hasToolExecution(version) ? [] : ["execution"])];
    foreignByVersion.set(version, keys);
  }
  return keys;
}

function without(item: object, keys: readonly string[]): object {
  return Object.fromEntries(Object.entries(item).filter(([key]) => !keys.includes(key)));
}

/**
 * A list result (`key`: its array) as `version` knows it. A preserialized page (the registry's)
 * is worked out once per revision and stays preserialized: 2026-07-28's tools/list is on the hot
 * path, its 20 KB page spliced in as bytes (preserialized.ts). Other results are built per request
 * and are not kept.
 */
export function listForRevision(result: Record<string, unknown>, key: string, version: string): Record<string, unknown> {
  const foreign = foreignKeys(version);
  if (foreign.length === 0) return result;
  const stable = serializedOf(result) !== undefined;
  const known = stable ? older.get(result)?.get(version) : undefined;
  if (known) return known;
  const items = result[key];
  const holds = (item: unknown) => typeof item === "object" && item !== null && foreign.some((k) => k in item);
  let answer = result;
  if (Array.isArray(items) && items.some(holds)) {
    answer = { ...result, [key]: items.map((item: object) => (holds(item) ? without(item, foreign) : item)) };
    if (stable) answer = preserialize(answer);
  }
  if (stable) {
    let byVersion = older.get(result);
    if (!byVersion) older.set(result, (byVersion = new Map()));
    byVersion.set(version, answer);
  }
  return answer;
}
