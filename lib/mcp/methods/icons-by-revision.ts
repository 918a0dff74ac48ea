import { hasIcons } from "../protocol/protocol-versions";
import { withoutIcons } from "../protocol/icons";

/**
 * `icons` (serverInfo, tools, resources, templates, prompts) exist from 2025-11-25 on (basic
 * §icons): a client of an older revision gets the same lists without them.
 */

const older = new WeakMap<object, Record<string, unknown>>();

/** A list result (`key`: its array) as `version` knows it; computed once per cached page. */
export function listForRevision(result: Record<string, unknown>, key: string, version: string): Record<string, unknown> {
  if (hasIcons(version)) return result;
  const items = result[key];
  if (!Array.isArray(items) || !items.some((item) => typeof item === "object" && item !== null && "icons" in item)) return result;
  let answer = older.get(result);
  if (!answer) {
    answer = { ...result, [key]: items.map((item: object) => withoutIcons(item)) };
    older.set(result, answer);
  }
  return answer;
}
