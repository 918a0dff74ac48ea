import { McpError } from "../../jsonrpc";
import { complete } from "./completion";
import { ping, setLogLevel } from "./lifecycle";
import type { MaybePromise, MethodCall, MethodEnv, MethodHandler } from "./method-env";
import { getPrompt, listPrompts } from "./prompts";
import { listResourceTemplates, listResources, readResource, subscribeResource, unsubscribeResource } from "./resources";
import { callTool, listTools } from "./tools";
import { discover } from "./discover";
import { batchTools } from "./tools-batch";
import { cancelTask, getTask, updateTask } from "./tasks";
import { cancelLegacyTask, getLegacyTask, legacyTaskResult } from "./legacy-tasks";

export { initialize, type Negotiated } from "./lifecycle";
export type { MethodCall, MethodEnv, SessionControl } from "./method-env";

const SHARED: Readonly<Record<string, MethodHandler>> = {
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listResourceTemplates,
  "resources/read": readResource,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  "completion/complete": complete,
};

/** Method name → handler, per era: the routing tables of the core (initialize is the transport's). */
export const SESSION_ERA_METHODS: Readonly<Record<string, MethodHandler>> = {
  ...SHARED,
  // Session era only. 2026-07-28 mirrors every call's tool in Mcp-Name so that gateways can route
  // and filter on it (basic/transports/streamable-http §standard request headers); a batch would
  // run tools no header names. There, each call is its own request, as cheap as a batch without
  // sessions (outside audit, 2026-11-27).
  "tools/batch": batchTools,
  ping,
  "resources/subscribe": subscribeResource,
  "resources/unsubscribe": unsubscribeResource,
  "logging/setLevel": setLogLevel,
  // 2025-11-25 experimental tasks (legacy-tasks.ts); -32601 on the earlier revisions.
  "tasks/get": getLegacyTask,
  "tasks/result": legacyTaskResult,
  "tasks/cancel": cancelLegacyTask,
};

/**
 * 2026-07-28 drops ping, logging/setLevel and resources/(un)subscribe (changelog) and adds
 * server/discover; subscriptions/listen is a stream, served by the transport. The tasks
 * extension (SEP-2663) adds tasks/get, tasks/update and tasks/cancel; its v1 tasks/result and
 * tasks/list are gone (-32601).
 */
export const STATELESS_ERA_METHODS: Readonly<Record<string, MethodHandler>> = {
  ...SHARED,
  "server/discover": discover,
  "tasks/get": getTask,
  "tasks/update": updateTask,
  "tasks/cancel": cancelTask,
};

export type MethodTable = Readonly<Record<string, MethodHandler>>;

/** Run a method. Throws (synchronously) or rejects with McpError; may answer synchronously. */
export function dispatch(
  env: MethodEnv,
  method: string,
  call: MethodCall,
  table: MethodTable = SESSION_ERA_METHODS,
): MaybePromise<Record<string, unknown>> {
  const handler = Object.hasOwn(table, method) ? table[method] : undefined;
  if (!handler) throw McpError.methodNotFound(method);
  return handler(env, call);
}
