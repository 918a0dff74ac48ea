import { hasIcons, hasToolExecution } from "../protocol/protocol-versions";
import { preserialize, serializedOf } from "../../jsonrpc";

/**
 * A list's items as the negotiated revision defines them: a strict client validates them against
 * its revision's schema (outside protocol audit).
 * - `icons` (serverInfo, tools, resources, templates, prompts) exist from 2025-11-25 on (basic §icons).
 * - A tool's `execution` exists in 2025-11-25 alone: 2026-07-28's Tool has none (its tasks
 *   extension lets the server decide per request, SEP-2663), and older revisions had no tasks.
 */

const older = new WeakMap<object, Map<string, Record<string, unknown>>>();

/** The keys of an item `version` does not define. */
function foreignKeys(version: string): readonly string[] {
  const keys: string[] = [];
  if (!hasIcons(version)) keys.push("icons");
  if (!hasToolExecution(version)) keys.push("execution");
  return keys;
}

function without(item: object, keys: readonly string[]): object {
  return Object.fromEntries(Object.entries(item).filter(([key]) => !keys.includes(key)));
}

/** A list result (`key`: its array) as `version` knows it; computed once per cached page and revision. */
export function listForRevision(result: Record<string, unknown>, key: string, version: string): Record<string, unknown> {
  const items = result[key];
  if (!Array.isArray(items)) return result;
  const foreign = foreignKeys(version);
  const holds = (item: unknown) => typeof item === "object" && item !== null && foreign.some((k) => k in item);
  if (foreign.length === 0 || !items.some(holds)) return result;
  let byVersion = older.get(result);
  if (!byVersion) older.set(result, (byVersion = new Map()));
  let answer = byVersion.get(version);
  if (!answer) {
    answer = { ...result, [key]: items.map((item: object) => (holds(item) ? without(item, foreign) : item)) };
    // A page serialized once (the registry's) stays so in every revision: 2026-07-28's tools/list
    // is on the hot path, and its 20 KB page is spliced in as bytes (preserialized.ts).
    if (serializedOf(result) !== undefined) answer = preserialize(answer);
    byVersion.set(version, answer);
  }
  return answer;
}
