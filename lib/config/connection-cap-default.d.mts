export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: number;
export const MAX_CONNECTIONS_PER_ADDRESS_LIMIT: number;
export function parseConnectionCap(value: string | undefined): number | undefined;
