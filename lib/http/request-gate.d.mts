import type * as http from "node:http";

export const SERVED_METHODS: readonly ("GET" | "HEAD" | "OPTIONS" | "POST" | "PUT" | "DELETE" | "PATCH")[];
export function installRequestGate(httpModule: typeof http): void;
