import type { PostContext } from "./run-request";
import { callerScope, type SessionEraState } from "./state";

/**
 * A notification from the client. Only notifications/cancelled acts; notifications/initialized,
 * roots/list_changed and progress need nothing, and unknown ones are ignored (JSON-RPC §4.1:
 * notifications are never answered).
 */
export function handleNotification(state: SessionEraState, ctx: PostContext, method: string, params: Record<string, unknown> | undefined): void {
  if (method !== "notifications/cancelled") return;
  // Anonymous stateless callers share no scope that tells them apart: a cancellation from one
  // could abort another's request with the same id. They cancel by closing the connection.
  if (!ctx.session && !ctx.auth) return;
  const id = params?.requestId;
  if (typeof id !== "string" && typeof id !== "number") return;
  const reason = typeof params?.reason === "string" ? params.reason.slice(0, 200) : "cancelled by client";
  const scope = callerScope(ctx.session, ctx.auth);
  // Not running here: perhaps on another instance.
  if (!state.inFlight.cancel(scope, id, reason)) state.bus.publish({ kind: "cancel", scope, requestId: id, reason });
}
