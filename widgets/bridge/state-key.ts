/**
 * Where the MCP Apps bridge keeps a widget's state (MCP Apps hosts keep none): one key per
 * rendered result. toolInfo.id alone is a JSON-RPC id, which repeats from one session to the next,
 * and the arguments alone are the same for every card of one world; a digest of the result itself
 * tells those cards apart, while a re-render of the same result (same id, input and result) finds
 * its state again.
 */

export const STATE_KEY_PREFIX = "worldcrafter:widget-state:";

/** FNV-1a, twice with different seeds (64 bits): a key, not a secret. */
export function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

export function stateKey(widget: string, rendered: { toolCallId?: string | number; input?: unknown; result?: unknown }): string {
  const { toolCallId = null, input = null, result = null } = rendered;
  return `${STATE_KEY_PREFIX}${widget}:${digest(JSON.stringify([toolCallId, input, result]))}`;
}

/** How many results' states one origin keeps: the oldest go first. */
export const MAX_KEPT_STATES = 100;

/** The keys of the states kept, oldest first. */
const INDEX_KEY = `${STATE_KEY_PREFIX}index`;

/**
 * Saves `value` under `key` and forgets the oldest states past `max`. Every result has a key of
 * its own, so without a bound the widgets' shared origin filled up with one entry per card ever
 * shown until the browser refused writes (review).
 */
export function keepState(store: Pick<Storage, "getItem" | "setItem" | "removeItem">, key: string, value: string, max = MAX_KEPT_STATES): void {
  let keys: string[] = [];
  try {
    const parsed: unknown = JSON.parse(store.getItem(INDEX_KEY) ?? "[]");
    if (Array.isArray(parsed)) keys = parsed.filter((k): k is string => typeof k === "string");
  } catch {
    // a corrupt index starts again
  }
  keys = [...keys.filter((k) => k !== key), key];
  for (const old of keys.splice(0, Math.max(0, keys.length - max))) store.removeItem(old);
  store.setItem(key, value);
  store.setItem(INDEX_KEY, JSON.stringify(keys));
}
