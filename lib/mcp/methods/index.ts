import { McpError } from "../../jsonrpc";
import { complete } from "./completion";
import { ping, setLogLevel } from "./lifecycle";
import type { MaybePromise, MethodCall, MethodEnv, MethodHandler } from "./method-env";
import { getPrompt, listPrompts } from "./prompts";
import { listResourceTemplates, listResources, readResource, subscribeResource, unsubscribeResource } from "./resources";
import { callTool, listTools } from "./tools";

export { initialize, type Negotiated } from "./lifecycle";
export type { MethodCall, MethodEnv, SessionControl } from "./method-env";

/** Method name → handler: the one routing table of the core (initialize is the transport's). */
const METHODS: Readonly<Record<string, MethodHandler>> = {
  ping,
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listResourceTemplates,
  "resources/read": readResource,
  "resources/subscribe": subscribeResource,
  "resources/unsubscribe": unsubscribeResource,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  "completion/complete": complete,
  "logging/setLevel": setLogLevel,
};

export function isKnownMethod(method: string): boolean {
  return Object.hasOwn(METHODS, method) || method === "initialize";
}

/** Run a method. Throws (synchronously) or rejects with McpError; may answer synchronously. */
export function dispatch(env: MethodEnv, method: string, call: MethodCall): MaybePromise<Record<string, unknown>> {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!handler) throw McpError.methodNotFound(method);
  return handler(env, call);
}
