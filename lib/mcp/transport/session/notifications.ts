import { logUnexpected } from "../../runtime/request-log";
import type { SessionRecord } from "../session-store";
import type { PostContext } from "./run-request";
import { callerScope, type SessionEraState } from "./state";
import { cutText } from "../../../text/cut-text";

/**
 * A notification from the client. notifications/initialized and notifications/cancelled act;
 * roots/list_changed and progress need nothing, and unknown ones are ignored (JSON-RPC §4.1:
 * notifications are never answered). Returns the session write to wait for before the 202, if any.
 */
export function handleNotification(state: SessionEraState, ctx: PostContext, method: string, params: Record<string, unknown> | undefined): Promise<void> | undefined {
  if (method === "notifications/initialized") return markInitialized(state, ctx.session);
  if (method !== "notifications/cancelled") return undefined;
  // Anonymous stateless callers share no scope that tells them apart: a cancellation from one
  // could abort another's request with the same id. They cancel by closing the connection.
  if (!ctx.session && !ctx.auth) return undefined;
  const id = params?.requestId;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const reason = typeof params?.reason === "string" ? cutText(params.reason, 200) : "cancelled by client";
  const scope = callerScope(ctx.session, ctx.auth);
  // Not running here: perhaps on another instance.
  if (!state.inFlight.cancel(scope, id, reason)) state.bus.publish({ kind: "cancel", scope, requestId: id, reason });
  return undefined;
}

/**
 * basic/lifecycle §initialization: from now on the server may ask the client things. Stored
 * before the 202, so the client's next request sees it on whichever instance it lands.
 */
function markInitialized(state: SessionEraState, session: SessionRecord | undefined): Promise<void> | undefined {
  if (!session || session.initialized !== false) return undefined;
  // The rest of this POST (a 2025-03-26 batch) sees it at once.
  session.initialized = true;
  return state.sessions.update(session.id, { initialized: true }).catch((e: unknown) => logUnexpected("session initialized update", e));
}
