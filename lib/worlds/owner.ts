import type { HandlerContext } from "../mcp";

/**
 * The fixed development subject: every row is owned by it until the auth issue gives requests a
 * real subject. The one place that decides who owns what a call touches.
 */
export const DEV_SUBJECT = "dev-user";

export function ownerOf(ctx: Pick<HandlerContext, "auth">): string {
  return ctx.auth?.subject ?? DEV_SUBJECT;
}
