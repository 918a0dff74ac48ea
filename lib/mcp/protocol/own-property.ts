/**
 * A table's own entry for a key the client chose, or undefined. `table[key]` would also find
 * what every object inherits (`constructor`, `__proto__`, `toString`), turning a client's name
 * into a function of Object.prototype.
 */
export function ownEntry<V>(table: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
