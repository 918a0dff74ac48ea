import type * as http from "node:http";

export function onResponseHead(hook: (response: http.ServerResponse, writeHeadArgs: unknown[]) => void): void;
export function installResponseHead(httpModule: typeof http): void;
