import type { Json } from "../bridge/host";

export interface CharacterRow extends Json {
  id: string;
  name: string;
  role: string;
}

/** A character added from this card, as its widget state keeps it. */
export interface AddedRow extends CharacterRow {
  /** The server's character count in the result the card showed when this one was added. */
  over?: number;
}

/**
 * Characters added from this card that the server's list does not hold yet. The card adds them
 * to the list; one a later result already lists (or added twice) would otherwise be shown twice.
 */
export function addedBeyond<R extends CharacterRow>(listed: readonly CharacterRow[], added: readonly R[]): R[] {
  const seen = new Set(listed.map((c) => c.id));
  return added.filter((c) => !seen.has(c.id) && seen.add(c.id));
}

/**
 * The character count to show: the server's, plus the characters added on that very result. A
 * later result counts them itself, listed or not (it lists only the first few), so they are not
 * added to its count again. `added` is deduplicated (addedBeyond).
 */
export function countWithAdded(serverCount: number, added: readonly AddedRow[]): number {
  return serverCount + added.filter((c) => c.over === serverCount).length;
}
