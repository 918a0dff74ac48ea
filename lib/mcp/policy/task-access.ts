import type { AuthInfo } from "../../auth/auth-info";
import { insufficientScope } from "../../auth/access-control";
import { decideAccess } from "./access";
import type { AuthorizeEnv } from "./authorize";

/**
 * Whether the caller may still reach a task's outcome: a task is bound to its creator's subject
 * (tasks/owner.ts), and every tasks request is also checked against the tool it runs, as a call of
 * that tool would be. A token of the same user without the tool's scopes (another app's, a
 * narrower grant) reads nothing the tool would have refused it: 403 insufficient_scope, as
 * tools/call answers (SEP-2663 §security: authorization checks on each task-related request;
 * 2025-11-25 basic/utilities/tasks §security considerations). A tool no longer registered leaves
 * its tasks to their owner.
 */
export function authorizeTaskAccess(env: AuthorizeEnv, tool: string, auth: AuthInfo | undefined): void {
  if (!env.access || !auth) return;
  const compiled = env.registry.getTool(tool);
  if (!compiled) return;
  const decision = decideAccess(compiled.security, auth);
  if (decision.kind === "step_up") throw insufficientScope(env.access, decision.scopes);
}
