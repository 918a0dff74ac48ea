/** The public face of the MCP core: define a registry, build an endpoint, mount it. */
export { createMcpEndpoint, type EndpointDefinition, type McpEndpoint } from "./create-endpoint";
export * from "./registry";
export type { HandlerContext } from "./handler-context";
export type * from "./types";
export { LOGGING_LEVELS } from "./types";
export type { ServerIdentity } from "./server-info";
export type { SessionStore, SessionRecord } from "./transport/session-store";
export { resourceNotFound } from "./errors";
export { McpError, ErrorCode } from "../jsonrpc";
