import type * as http from "node:http";

export function installTrustedHost(httpModule: typeof http): void;
export function trustedPeerHeader(): string | undefined;
export function repeatedMcpHeaders(rawHeaders: readonly string[]): string;
export function markRepeatedHeaders(headers: Record<string, string | string[] | undefined>, rawHeaders: readonly string[]): void;
export function repeatedHeadersHeader(): string;
