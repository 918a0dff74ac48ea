/** Levenshtein distance between `a` and `b` (one row at a time: names are short). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The name among `names` closest to a mistyped `given`, if one is close enough to be what was
 * meant (a third of its length, at least 1, edits away); otherwise undefined, so a wild guess is
 * never offered as a suggestion.
 */
export function closestName(given: string, names: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
