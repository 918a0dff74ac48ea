import type * as http from "node:http";

export function installNodeFront(httpModule: typeof http): void;
