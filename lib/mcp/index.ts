/** The public face of the MCP core: define a registry, build an endpoint, mount it. */
export { createMcpEndpoint, type EndpointAdapters, type EndpointDefinition, type McpEndpoint } from "./create-endpoint";
export { lookupLocale, type LocalePolicy } from "./locale";
export type { ClientHints, UserLocation } from "./client-hints";
export type { ToolCallObserver, ToolCallOutcome, ToolCallRecord } from "./tool-call-observer";
export * from "./registry";
export type { HandlerContext } from "./handler-context";
export type * from "./types";
export { LOGGING_LEVELS } from "./types";
export type { ServerIdentity } from "./server-info";
export type { SessionStore, SessionRecord } from "./transport/session-store";
export type { HandleInit } from "../http/handle-init";
export { resourceNotFound } from "./errors";
export { McpError, ErrorCode } from "../jsonrpc";
export { NO_AUTH, WWW_AUTHENTICATE_META_KEY, decideAccess, hasScopes, insufficientScope, unauthorized, type AccessControl, type ChallengeDetails, type SecurityScheme } from "./access";
export type { AuthInfo } from "../auth/auth-info";
export { ToolError } from "./tool-error";
export { ownEntry } from "./own-property";
