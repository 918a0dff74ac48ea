export const ROUTE_HANDLER_PREFIXES: readonly string[];
export const FRAMEWORK_HEADERS: readonly string[];
export function isRouteHandlerPath(url: string): boolean;
export function dropFrameworkHeaders(url: string, headers: Record<string, string | string[] | undefined>): void;
