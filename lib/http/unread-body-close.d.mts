import type * as http from "node:http";

export const UNREAD_BODY_GRACE_MS: number;
export function installUnreadBodyClose(httpModule: typeof http): void;
