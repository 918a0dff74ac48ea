import type { IncomingMessage, ServerResponse } from "node:http";

/** The most requests one connection may have in flight at once. */
export const MAX_PIPELINED: number;
/** Notes the request on its connection; false (the connection destroyed) past MAX_PIPELINED in flight. */
export function admitPipelined(req: IncomingMessage, res: ServerResponse): boolean;
