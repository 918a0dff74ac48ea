/**
 * An app's scopes, defined in one table: name, what it grants (for metadata and consent screens),
 * and the narrower scopes it implies (basic/authorization §scope selection: servers must account
 * for scope hierarchies, where a broader scope implies narrower ones).
 */
export interface ScopeDefinition {
  name: string;
  description: string;
  implies?: readonly string[];
}

export type ScopeCatalog = readonly ScopeDefinition[];

/** The scopes a token grants, with everything they imply. */
export function expandScopes(catalog: ScopeCatalog, granted: Iterable<string>): string[] {
  const out = new Set<string>();
  const add = (name: string) => {
    if (out.has(name)) return;
    out.add(name);
    for (const implied of catalog.find((s) => s.name === name)?.implies ?? []) add(implied);
  };
  for (const name of granted) add(name);
  return [...out];
}
