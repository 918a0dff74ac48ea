import type { HandlerContext } from "../mcp";

/**
 * Whose data a call touches: the authenticated subject, always. Tools, resources and prompts
 * that reach user data declare scopes, so the transport never lets an anonymous caller this far;
 * reaching here without a subject is a bug, and it fails closed.
 */
export function ownerOf(ctx: Pick<HandlerContext, "auth">): string {
  const subject = ctx.auth?.subject;
  if (!subject) throw new Error("Sign in required: this needs your account");
  return subject;
}

/** The subject an audit row names: the caller, or "anonymous". */
export function subjectOf(ctx: Pick<HandlerContext, "auth">): string {
  return ctx.auth?.subject ?? "anonymous";
}
