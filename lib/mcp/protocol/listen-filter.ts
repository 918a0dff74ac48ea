import { z } from "zod";
import { forbiddenTextIssue } from "../runtime/validate";

/**
 * Resources one subscriber may follow at once: a listen stream's filter (below) or a session's
 * resources/subscribe calls. Each is a string kept for the subscriber's lifetime (a session's:
 * up to a day), so it is bounded (outside audit: 60,000 subscriptions were taken into one session).
 */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;

/**
 * A subscribed URI or task id is text like any other param: a control character or lone surrogate
 * is -32602 here as in resources/subscribe, whose URI must name a resource (outside probe,
 * 2026-11-29: a listen took `world://\u0000` and echoed it in its acknowledgement).
 */
const plainText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((text, ctx) => {
      const issue = forbiddenTextIssue(text);
      if (issue) ctx.addIssue({ code: "custom", message: issue.message });
    });

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
    resourceSubscriptions: z.array(plainText(2048)).max(MAX_RESOURCE_SUBSCRIPTIONS).optional(),
    /** SEP-2663: notifications/tasks for these of the caller's tasks. */
    taskIds: z.array(plainText(200)).max(100).optional(),
  }),
});

export type ListenFilter = z.infer<typeof ListenParams>["notifications"];
