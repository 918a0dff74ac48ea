import type { Json } from "../bridge/host";

export interface CharacterRow extends Json {
  id: string;
  name: string;
  role: string;
}

/**
 * Characters added from this card that the server's list does not hold yet. The card adds them
 * to the list and the count; one a later result already lists (or added twice) would otherwise be
 * shown and counted twice.
 */
export function addedBeyond(listed: readonly CharacterRow[], added: readonly CharacterRow[]): CharacterRow[] {
  const seen = new Set(listed.map((c) => c.id));
  return added.filter((c) => !seen.has(c.id) && seen.add(c.id));
}
