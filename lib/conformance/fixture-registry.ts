import type { Registry } from "../mcp";

/**
 * The fixture endpoint's registry, for the fixtures that change their own lists. endpoint.ts
 * hands it over once it has built the endpoint, so the fixtures need not import the module that
 * is built from them.
 */
let current: Registry | undefined;

export function provideFixtureRegistry(registry: Registry): void {
  current = registry;
}

export function fixtureRegistry(): Registry {
  if (!current) throw new Error("fixture endpoint is off");
  return current;
}
