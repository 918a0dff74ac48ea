import { z } from "zod";

/**
 * Resources one subscriber may follow at once: a listen stream's filter (below) or a session's
 * resources/subscribe calls. Each is a string kept for the subscriber's lifetime (a session's:
 * up to a day), so it is bounded (outside audit: 60,000 subscriptions were taken into one session).
 */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;

/**
 * The params of subscriptions/listen (2026-07-28 basic/patterns/subscriptions §notification
 * filter), with this server's bounds. Its own module because two roles read it: the transport
 * that serves the stream, and the policy that decides which scopes opening it needs.
 */
export const ListenParams = z.looseObject({
  notifications: z.looseObject({
    toolsListChanged: z.boolean().optional(),
    promptsListChanged: z.boolean().optional(),
    resourcesListChanged: z.boolean().optional(),
    resourceSubscriptions: z.array(z.string().min(1).max(2048)).max(MAX_RESOURCE_SUBSCRIPTIONS).optional(),
    /** SEP-2663: notifications/tasks for these of the caller's tasks. */
    taskIds: z.array(z.string().min(1).max(200)).max(100).optional(),
  }),
});

export type ListenFilter = z.infer<typeof ListenParams>["notifications"];
