/**
 * MCP_MAX_CONNECTIONS_PER_ADDRESS, read one way by the validation (env.ts) and by the cap in front
 * of Next (lib/http/connection-cap.mjs), which loads no TypeScript.
 */

/** When unset: a thousand connections holding slow bodies hold some 150 MB. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1000;
export const MAX_CONNECTIONS_PER_ADDRESS_LIMIT = 1_000_000;

/** A whole number from 0 to the limit (0: no cap), else undefined. */
export function parseConnectionCap(value) {
  if (value === undefined || !/^\d{1,7}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n <= MAX_CONNECTIONS_PER_ADDRESS_LIMIT ? n : undefined;
}
