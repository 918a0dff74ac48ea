import type * as http from "node:http";

export function installTrustedHost(httpModule: typeof http): void;
export function trustedPeerHeader(): string | undefined;
