import type { CallScope, ResourceUpdatePublisher } from "../runtime/handler-context";
import type { McpError } from "../../jsonrpc";
import type { Registry } from "../registry";
import type { ServerExtensions, ServerIdentity } from "../protocol/server-info";
import type { LoggingLevel } from "../protocol/types";
import type { LocalePolicy } from "../policy/locale";
import type { ToolCallObserver } from "../runtime/tool-call-observer";
import type { AccessControl } from "../../auth/access-control";
import type { TaskRuntime } from "../tasks/runtime";

/** Per-session state a method may change (the transport persists it in the SessionStore). */
export interface SessionControl {
  setLogLevel(level: LoggingLevel): Promise<void>;
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
}

/** What every method handler can reach. */
export interface MethodEnv {
  registry: Registry;
  info: ServerIdentity;
  instructions: string | undefined;
  /** Locales the server writes human text in (handler ctx.locale, initialize `_meta`). */
  locales?: LocalePolicy;
  /** Told about every finished tools/call (an audit log, metrics). Must not block or throw. */
  onToolCall?: ToolCallObserver;
  /** Who may call what; absent: everything is open (the conformance fixtures, local tools). */
  access?: AccessControl;
  /** The most calls one tools/batch may carry. */
  maxToolBatch?: number;
  /** A tools/call still running after this long is stopped and answered with an isError result. */
  toolTimeoutMs?: number;
  /** Durable tasks (io.modelcontextprotocol/tasks); absent, the extension is not offered. */
  tasks?: TaskRuntime;
  /** Extensions the server supports, announced in initialize and server/discover capabilities. */
  extensions?: ServerExtensions;
  /** Where a handler's `ctx.resourcesUpdated` goes (the notification hub); absent, nowhere. */
  publishResourceUpdate?: ResourceUpdatePublisher;
}

export interface MethodCall {
  params: Record<string, unknown>;
  scope: CallScope;
  session: SessionControl | undefined;
  /**
   * The transport's checks for a request made inside this one (tools/batch: each call is
   * authorized and rate-limited as if it came alone): the refusal, or undefined to go ahead.
   */
  admit?: (method: string, params: Record<string, unknown>) => McpError | undefined | Promise<McpError | undefined>;
}

/** A result now or later: handlers that need no I/O answer synchronously, saving promise hops. */
export type MaybePromise<T> = T | Promise<T>;

export type MethodHandler = (env: MethodEnv, call: MethodCall) => MaybePromise<Record<string, unknown>>;
