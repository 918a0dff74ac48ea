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
 * 2025-11-25 basic/utilities/tasks §security considerations). A task of a tool this endpoint does
 * not offer is out of reach: it may be another endpoint's, whose scopes this one cannot judge
 * (task-lookup.ts answers it as unknown).
 */
export function authorizeTaskAccess(env: AuthorizeEnv, tool: string, auth: AuthInfo | undefined): void {
  const missing = scopesMissingFor(env, tool, auth);
  if (missing && env.access) throw insufficientScope(env.access, missing);
}

/** The same check as a predicate, for a task's status notifications on a listen stream. */
export function mayReachTask(env: AuthorizeEnv, tool: string, auth: AuthInfo | undefined): boolean {
  return env.registry.getTool(tool) !== undefined && scopesMissingFor(env, tool, auth) === undefined;
}

/** The scopes a token lacks for a task's tool, or undefined when it may reach the task. */
function scopesMissingFor(env: AuthorizeEnv, tool: string, auth: AuthInfo | undefined): readonly string[] | undefined {
  if (!env.access || !auth) return undefined;
  const compiled = env.registry.getTool(tool);
  if (!compiled) return undefined; // mayReachTask and task-lookup.ts keep such tasks out of reach
  const decision = decideAccess(compiled.security, auth);
  return decision.kind === "step_up" ? decision.scopes : undefined;
}
