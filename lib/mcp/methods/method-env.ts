import type { CallScope } from "../handler-context";
import type { Registry } from "../registry";
import type { ServerIdentity } from "../server-info";
import type { LoggingLevel } from "../types";

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
}

export interface MethodCall {
  params: Record<string, unknown>;
  scope: CallScope;
  session: SessionControl | undefined;
}

/** A result now or later: handlers that need no I/O answer synchronously, saving promise hops. */
export type MaybePromise<T> = T | Promise<T>;

export type MethodHandler = (env: MethodEnv, call: MethodCall) => MaybePromise<Record<string, unknown>>;
