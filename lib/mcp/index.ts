/** The public face of the MCP core: define a registry, build an endpoint, mount it. */
export { createMcpEndpoint, type EndpointAdapters, type EndpointDefinition, type McpEndpoint } from "./create-endpoint";
export { lookupLocale, type LocalePolicy } from "./policy/locale";
export type { ClientHints, UserLocation } from "./policy/client-hints";
export type { ToolCallObserver, ToolCallOutcome, ToolCallRecord } from "./runtime/tool-call-observer";
export * from "./registry";
export type { HandlerContext } from "./runtime/handler-context";
export type * from "./protocol/types";
export { LOGGING_LEVELS } from "./protocol/types";
export type { ServerExtensions, ServerIdentity } from "./protocol/server-info";
export type { SessionStore, SessionRecord } from "./transport/session-store";
export type { HandleInit } from "../http/handle-init";
export { resourceNotFound } from "./protocol/errors";
export { McpError, ErrorCode } from "../jsonrpc";
export { NO_AUTH, WWW_AUTHENTICATE_META_KEY, decideAccess, hasScopes, type SecurityScheme } from "./policy/access";
export { insufficientScope, unauthorized, type AccessControl, type ChallengeDetails } from "../auth/access-control";
export type { AuthInfo } from "../auth/auth-info";
export { TOOL_ERROR_CODES, ToolError, ToolErrorContent, toolErrorResult, type ToolErrorCode } from "./runtime/tool-error";
export { ownEntry } from "./protocol/own-property";
