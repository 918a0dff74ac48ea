/**
 * MCP_MAX_CONNECTIONS_PER_ADDRESS when unset: one fact for the validation (env.ts) and the cap in
 * front of Next (lib/http/connection-cap.mjs), which loads no TypeScript. A thousand slow-body
 * connections hold some 150 MB; a proxy carrying many clients is listed in MCP_TRUSTED_PROXIES
 * and not capped.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1000;
