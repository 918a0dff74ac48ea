import type { AuthInfo } from "../auth/auth-info";
import type { JsonRpcId } from "../jsonrpc";
import { McpError } from "../jsonrpc";
import type { ZodType } from "zod";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  REQUIRED_CLIENT_CAPABILITY,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type ListRootsResult,
  type ServerRequestMethod,
} from "./client-requests";
import { loggingLevelRank, type LoggingLevel, type Meta } from "./types";

export type ProgressToken = string | number;

/** The request's `_meta` (basic/index §_meta); `progressToken` per basic/utilities/progress. */
export interface RequestMeta extends Meta {
  progressToken?: ProgressToken;
}

/**
 * What the transport provides to one call: a way to send notifications related to it and to ask
 * the client something. The era decides how (an SSE stream in 2025; input-required rounds in
 * 2026-07-28) — handlers never see the difference.
 */
export interface CallChannel {
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  request(method: ServerRequestMethod, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Ask the transport to end the response stream early; the client resumes it (SSE polling). */
  closeStream(retryMs?: number): void;
}

/** Everything the dispatcher knows about one incoming request. */
export interface CallScope {
  requestId: JsonRpcId;
  signal: AbortSignal;
  protocolVersion: string;
  sessionId: string | undefined;
  auth: AuthInfo | undefined;
  meta: RequestMeta;
  clientCapabilities: Record<string, unknown> | undefined;
  /** Minimum level of notifications/message for this call (logging/setLevel). */
  logLevel: LoggingLevel | undefined;
  channel: CallChannel;
}

/** The context an app handler receives as its second argument. */
export interface HandlerContext {
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: RequestMeta;
  readonly protocolVersion: string;
  /** Report progress; a no-op when the caller sent no progressToken (basic/utilities/progress). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Send notifications/message if the level passes the client's logging/setLevel. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Send any notification related to this call. */
  sendNotification(method: string, params: Record<string, unknown>): Promise<void>;
  elicit(params: ElicitParams): Promise<ElicitResult>;
  sample(params: CreateMessageParams): Promise<CreateMessageResult>;
  listRoots(): Promise<ListRootsResult>;
  /** End the SSE response early so the client polls for the rest (2025-11-25 transports). */
  closeStream(retryMs?: number): void;
}

function hasCapability(scope: CallScope, method: ServerRequestMethod): boolean {
  const caps = scope.clientCapabilities;
  return caps !== undefined && caps[REQUIRED_CLIENT_CAPABILITY[method]] !== undefined;
}

async function ask<T>(scope: CallScope, method: ServerRequestMethod, params: object, schema: ZodType<T>): Promise<T> {
  if (!hasCapability(scope, method)) {
    // lifecycle §capabilities: a server MUST NOT send requests the client did not declare.
    throw new McpError(-32600, `The client did not declare the "${REQUIRED_CLIENT_CAPABILITY[method]}" capability needed for ${method}`);
  }
  const answer = await scope.channel.request(method, params as Record<string, unknown>, scope.signal);
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw McpError.invalidParams(`The client's answer to ${method} is malformed`);
  return parsed.data;
}

export function createHandlerContext(scope: CallScope): HandlerContext {
  const token = scope.meta.progressToken;
  return {
    // A getter: the AbortSignal is created only if the handler looks at it.
    get signal() {
      return scope.signal;
    },
    requestId: scope.requestId,
    sessionId: scope.sessionId,
    auth: scope.auth,
    meta: scope.meta,
    protocolVersion: scope.protocolVersion,
    async progress(progress, total, message) {
      if (token === undefined) return;
      await scope.channel.notify("notifications/progress", {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    },
    async log(level, data, logger) {
      if (scope.logLevel !== undefined && loggingLevelRank(level) < loggingLevelRank(scope.logLevel)) return;
      await scope.channel.notify("notifications/message", { level, data, ...(logger ? { logger } : {}) });
    },
    sendNotification: (method, params) => scope.channel.notify(method, params),
    elicit: (params) => ask(scope, "elicitation/create", params, ElicitResultSchema),
    sample: (params) => ask(scope, "sampling/createMessage", params, CreateMessageResultSchema),
    listRoots: () => ask(scope, "roots/list", {}, ListRootsResultSchema),
    closeStream: (retryMs) => scope.channel.closeStream(retryMs),
  };
}
