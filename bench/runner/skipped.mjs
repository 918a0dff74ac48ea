/** Rows that could not run (optional reference stacks), and why: the report lists them. */

/**
 * Rows that could not run, and why: { group, names, reason }. Only optional rows (the other
 * stacks) are skipped this way; a failure of our own rows still fails the run.
 */
export const skipped = [];

/** Drops the optional systems of `group` from `systems`, recording why; returns what is left. */
export function skipGroup(systems, group, reason) {
  const names = systems.filter((s) => s.optional === group).map((s) => s.name);
  if (names.length === 0) return systems;
  skipped.push({ group, names, reason });
  console.warn(`[bench] skipping ${names.join(", ")}: ${reason}`);
  return systems.filter((s) => s.optional !== group);
}
