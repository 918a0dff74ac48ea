import type * as http from "node:http";

/** Caps `server`'s connections per client; the map of open connections per client key, for inspection. */
export function capConnections(server: http.Server): Map<string, number>;
export function installConnectionCap(httpModule: typeof http): void;
