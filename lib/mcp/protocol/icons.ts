/** The object without its `icons` (2025-11-25 basic §icons), for a revision or a place that has none. */
export function withoutIcons<T extends object>(item: T): T {
  if (!("icons" in item)) return item;
  return Object.fromEntries(Object.entries(item).filter(([key]) => key !== "icons")) as T;
}
