import { z } from "zod";
import type { JsonRpcId } from "../../../jsonrpc";
import { MetaKey } from "../../protocol/meta-keys";
import type { NotificationHub } from "../../cluster/notification-hub";
import { mayHear, type ServerEvent } from "../../cluster/server-event";
import { parseOrInvalidParams } from "../../runtime/validate";
import { SSE_HEADERS, encodeSse, encodeSseComment } from "../sse";

const Filter = z.looseObject({
  notifications: z.looseObject({
    toolsListChanged: z.boolean().optional(),
    promptsListChanged: z.boolean().optional(),
    resourcesListChanged: z.boolean().optional(),
    resourceSubscriptions: z.array(z.string().min(1).max(2048)).max(100).optional(),
  }),
});

type Agreed = z.infer<typeof Filter>["notifications"];

function wants(filter: Agreed, event: ServerEvent, subject: string | undefined): boolean {
  if (event.kind === "resource_updated") {
    // Another user's resource is never announced, whatever URI the listener named.
    if (!mayHear(event, subject)) return false;
    // A subscription to a URI covers its sub-resources too.
    return (filter.resourceSubscriptions ?? []).some((uri) => event.uri === uri || event.uri.startsWith(uri.endsWith("/") ? uri : `${uri}/`));
  }
  if (event.list === "tools") return filter.toolsListChanged === true;
  if (event.list === "prompts") return filter.promptsListChanged === true;
  return filter.resourcesListChanged === true;
}

function notificationFor(event: ServerEvent, subscriptionId: JsonRpcId): string {
  const _meta = { [MetaKey.SubscriptionId]: subscriptionId };
  if (event.kind === "resource_updated") {
    return JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: event.uri, _meta } });
  }
  return JSON.stringify({ jsonrpc: "2.0", method: `notifications/${event.list}/list_changed`, params: { _meta } });
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
  /** Who opened the stream (the bearer token's subject; undefined: anonymous). */
  subject: string | undefined,
  /** Called once when the stream ends, whoever ends it. */
  onEnd?: () => void,
): Response {
  const { notifications } = parseOrInvalidParams(Filter, params);
  // Everything this server can send is honoured; keep only the keys the client asked for.
  const agreed: Agreed = {};
  if (notifications.toolsListChanged) agreed.toolsListChanged = true;
  if (notifications.promptsListChanged) agreed.promptsListChanged = true;
  if (notifications.resourcesListChanged) agreed.resourcesListChanged = true;
  if (notifications.resourceSubscriptions?.length) agreed.resourceSubscriptions = notifications.resourceSubscriptions;

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
        if (wants(agreed, event, subject)) send(encodeSse({ data: notificationFor(event, id) }));
      });
      const keepAlive = keepAliveMs > 0 ? setInterval(() => send(encodeSseComment("keep-alive")), keepAliveMs) : undefined;
      // A bounded lifetime keeps the stream inside the platform's function limit; the client re-listens.
      const lifetime = setTimeout(() => end(true), maxLifetimeMs);
      keepAlive?.unref?.();
      lifetime.unref?.();
      const end = (graceful: boolean) => {
        if (!open) return;
        if (graceful) {
          // SubscriptionsListenResult: the graceful end, its _meta names the subscription.
          send(encodeSse({ data: JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [MetaKey.SubscriptionId]: id } } }) }));
        }
        open = false;
        unsubscribe();
        if (keepAlive) clearInterval(keepAlive);
        clearTimeout(lifetime);
        onEnd?.();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      stop = () => end(false);
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
