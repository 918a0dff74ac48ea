import type { JsonRpcId } from "../../../jsonrpc";
import { MetaKey } from "../../protocol/meta-keys";
import type { NotificationHub } from "../../cluster/notification-hub";
import { mayHear, type ServerEvent } from "../../cluster/server-event";
import { parseOrInvalidParams } from "../../runtime/validate";
import { SSE_HEADERS, encodeSse, encodeSseComment } from "../sse";
import { afterLifetime, everyPeriod, refuseWhenShuttingDown } from "../stream-clock";
import { ErrorCode } from "../../../jsonrpc";
import { ProtocolError } from "../../protocol/protocol-error";
import { TASKS_EXTENSION } from "../../tasks/wire";
import { ListenParams, type ListenFilter } from "../../protocol/listen-filter";

/** Who listens, for the notifications that are a caller's own (resource updates, task status). */
export interface Listener {
  /** Who opened the stream (the bearer token's subject; undefined: anonymous). */
  subject: string | undefined;
  /** Whose tasks it hears of (tasks/owner.ts: anonymous callers by their address). */
  taskOwner: string;
  /** Whether the server offers tasks at all (MCP_TASKS). */
  tasksOffered: boolean;
  /** The server offers tasks and the request declared the extension. */
  tasks: boolean;
  /** Whether the stream's token has the scopes a read of `uri` needs (policy/authorize.ts). */
  mayRead(uri: string): boolean;
  /** Whether the stream's token may reach a task of `tool`, as tasks/get checks it (policy/task-access.ts). */
  mayReachTask(tool: string): boolean;
  /**
   * With tasks: how the stream learns that a task's instance died. Its task ids are read every
   * `periodMs` (TaskRuntime.stillWorking fails and announces a lapsed one) until none is working.
   */
  taskLapses?: { periodMs: number; stillWorking(taskIds: readonly string[]): Promise<string[]> };
}

type Agreed = ListenFilter;

const KEEP_ALIVE = encodeSseComment("keep-alive");

/** What a listen stream may carry: every server event but a 2025 session's own notifications. */
type ListenEvent = Exclude<ServerEvent, { kind: "session_notification" }>;

function wants(filter: Agreed, event: ServerEvent, listener: Listener): event is ListenEvent {
  // A session's own messages belong to the 2025 eras' GET streams.
  if (event.kind === "session_notification") return false;
  if (event.kind === "task_status") {
    // A task is its owner's alone (tasks/owner.ts, as the task store keys it), and its status
    // carries the tool's result: only for a token that tasks/get would answer.
    return (
      event.owner === listener.taskOwner &&
      typeof event.task.taskId === "string" &&
      (filter.taskIds ?? []).includes(event.task.taskId) &&
      listener.mayReachTask(event.tool)
    );
  }
  if (event.kind === "resource_updated") {
    // Another user's resource is never announced, whatever URI the listener named; nor one its
    // token may not read (caching §security): a subscription covers URIs below the one it
    // names, and opening it checked the scopes of that one only.
    if (!mayHear(event, listener.subject) || !listener.mayRead(event.uri)) return false;
    // A subscription to a URI covers its sub-resources too.
    return (filter.resourceSubscriptions ?? []).some((uri) => event.uri === uri || event.uri.startsWith(uri.endsWith("/") ? uri : `${uri}/`));
  }
  if (event.list === "tools") return filter.toolsListChanged === true;
  if (event.list === "prompts") return filter.promptsListChanged === true;
  return filter.resourcesListChanged === true;
}

function notificationFor(event: ListenEvent, subscriptionId: JsonRpcId): string {
  const _meta = { [MetaKey.SubscriptionId]: subscriptionId };
  if (event.kind === "task_status") {
    // SEP-2663 §task status notifications: the whole DetailedTask, as tasks/get would answer now.
    return JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...event.task, _meta } });
  }
  if (event.kind === "resource_updated") {
    return JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: event.uri, _meta } });
  }
  return JSON.stringify({ jsonrpc: "2.0", method: `notifications/${event.list}/list_changed`, params: { _meta } });
}

/**
 * Reads the stream's still-working tasks every lease period, so that one whose instance died is
 * failed and announced (to this stream among others) without waiting for someone to read it. A
 * read still under way skips the next beat. Returns the function that stops it.
 */
function watchTaskLapses(taskIds: readonly string[] | undefined, lapses: Listener["taskLapses"]): () => void {
  if (!taskIds?.length || !lapses) return () => undefined;
  let working: readonly string[] = taskIds;
  let reading = false;
  const stop = everyPeriod(lapses.periodMs, () => {
    if (reading) return;
    reading = true;
    lapses.stillWorking(working).then(
      (still) => {
        reading = false;
        working = still;
        if (still.length === 0) stop();
      },
      // The store did not answer: the next beat asks again.
      () => (reading = false),
    );
  });
  return stop;
}

/**
 * subscriptions/listen (2026-07-28): a long-lived POST response stream. First the acknowledgement
 * with what the server agreed to, then only the change notifications the client opted into, each
 * tagged with the subscription id (the listen request's id). Request-scoped notifications never
 * travel here. The client ends it by closing the stream.
 */
export function listenResponse(
  id: JsonRpcId,
  params: Record<string, unknown>,
  hub: NotificationHub,
  keepAliveMs: number,
  maxLifetimeMs: number,
  listener: Listener,
  /** The closing result as every 2026-07-28 result is sent: resultType, serverInfo in `_meta` (ModernResults). */
  complete: (result: Record<string, unknown>) => Record<string, unknown>,
  /** Called once when the stream ends, whoever ends it. */
  onEnd?: () => void,
  /**
   * Aborts when the client goes away: one gone before the headers leaves a body nobody reads or
   * cancels, which held its stream slot until the lifetime ran out (outside review).
   */
  clientGone?: AbortSignal,
): Response {
  refuseWhenShuttingDown();
  const { notifications } = parseOrInvalidParams(ListenParams, params);
  // A server without tasks leaves taskIds out of what it agrees to (subscriptions §acknowledgment:
  // types it does not support are omitted); one with tasks needs the client to have declared them.
  if (notifications.taskIds?.length && listener.tasksOffered && !listener.tasks) {
    throw new ProtocolError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${TASKS_EXTENSION} (for taskIds)`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
  // Everything this server can send is honoured; keep only the keys the client asked for.
  const agreed: Agreed = {};
  if (notifications.toolsListChanged) agreed.toolsListChanged = true;
  if (notifications.promptsListChanged) agreed.promptsListChanged = true;
  if (notifications.resourcesListChanged) agreed.resourcesListChanged = true;
  if (notifications.resourceSubscriptions?.length) agreed.resourceSubscriptions = notifications.resourceSubscriptions;
  if (notifications.taskIds?.length && listener.tasks) agreed.taskIds = notifications.taskIds;

  let stop = () => undefined as void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (chunk: Uint8Array) => {
        if (!open) return;
        try {
          controller.enqueue(chunk);
        } catch {
          open = false;
        }
      };
      send(
        encodeSse({
          data: JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/subscriptions/acknowledged",
            params: { _meta: { [MetaKey.SubscriptionId]: id }, notifications: agreed },
          }),
        }),
      );
      const unsubscribe = hub.subscribe((event) => {
        if (wants(agreed, event, listener)) send(encodeSse({ data: notificationFor(event, id) }));
      });
      // Shared timers (stream-clock.ts): a per-stream timer would keep this request's context alive.
      const stopBeat = everyPeriod(keepAliveMs, () => send(KEEP_ALIVE));
      const stopTaskWatch = watchTaskLapses(agreed.taskIds, listener.taskLapses);
      // A bounded lifetime keeps the stream inside the platform's function limit; the client re-listens.
      const stopLifetime = afterLifetime(maxLifetimeMs, () => end(true));
      const end = (graceful: boolean) => {
        if (!open) return;
        if (graceful) {
          // SubscriptionsListenResult: the graceful end, its _meta names the subscription.
          send(encodeSse({ data: JSON.stringify({ jsonrpc: "2.0", id, result: complete({ _meta: { [MetaKey.SubscriptionId]: id } }) }) }));
        }
        open = false;
        unsubscribe();
        stopBeat();
        stopTaskWatch();
        stopLifetime();
        clientGone?.removeEventListener("abort", stop);
        onEnd?.();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      stop = () => end(false);
      if (clientGone?.aborted) stop();
      else clientGone?.addEventListener("abort", stop, { once: true });
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
