import type { AuthInfo } from "../../auth/auth-info";
import { insufficientScope, unauthorized, type AccessControl } from "../../auth/access-control";
import { decideAccess, hasScopes } from "./access";
import type { Registry } from "../registry";
import { ListenParams } from "../protocol/listen-filter";

/**
 * The per-request authorization check, run by the transport before a request is dispatched so a
 * refusal can be the HTTP answer itself (401 with a challenge, 403 insufficient_scope;
 * basic/authorization §error handling). Anonymous tools/call of an oauth2 tool is let through:
 * in mixed mode it is answered by an isError result that starts account linking (tools.ts).
 */
/** What the check reads: the registry's declared scopes and who may call what (a MethodEnv has both). */
export interface AuthorizeEnv {
  registry: Registry;
  access?: AccessControl;
}

export function authorizeRequest(env: AuthorizeEnv, method: string, params: Record<string, unknown> | undefined, auth: AuthInfo | undefined): void {
  const access = env.access;
  if (!access) return;
  const scopes = requiredScopes(env, method, params ?? {}, auth, access);
  if (scopes.length === 0) return;
  if (!auth) throw unauthorized(access, { scopes });
  if (!hasScopes(auth, scopes)) throw insufficientScope(access, scopes);
}

function requiredScopes(env: AuthorizeEnv, method: string, params: Record<string, unknown>, auth: AuthInfo | undefined, access: AccessControl): readonly string[] {
  const { registry } = env;
  switch (method) {
    case "tools/call": {
      const tool = registry.getTool(textParam(params, "name") ?? "");
      if (!tool) return [];
      const decision = decideAccess(tool.security, auth);
      if (decision.kind === "step_up") throw insufficientScope(access, decision.scopes);
      return [];
    }
    case "resources/read":
    case "resources/subscribe":
      return scopesOfResource(env, textParam(params, "uri"));
    case "subscriptions/listen":
      return scopesOfListen(env, params);
    case "prompts/get":
      return registry.getPrompt(textParam(params, "name") ?? "")?.scopes ?? [];
    case "completion/complete": {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === "ref/prompt" && typeof ref.name === "string") return registry.getPrompt(ref.name)?.scopes ?? [];
      if (ref?.type === "ref/resource" && typeof ref.uri === "string") return registry.getTemplate(ref.uri)?.definition.scopes ?? [];
      return [];
    }
    default:
      return [];
  }
}

function textParam(params: Record<string, unknown>, key: string): string | undefined {
  const value = params[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * A listen needs what reading each resource it subscribes to needs, all named in one challenge
 * (basic/authorization §runtime insufficient scope; caching §security: per-primitive access
 * controls). Its other kinds need nothing of their own: list changes, as the lists need no
 * scope; task status, as tasks/get, is its owner's alone (listen.ts). A malformed filter is
 * left to the listen's own -32602.
 */
function scopesOfListen(env: AuthorizeEnv, params: Record<string, unknown>): readonly string[] {
  const parsed = ListenParams.safeParse(params);
  if (!parsed.success) return [];
  const scopes = new Set<string>();
  for (const uri of parsed.data.notifications.resourceSubscriptions ?? []) for (const scope of scopesOfResource(env, uri)) scopes.add(scope);
  return [...scopes];
}

/**
 * Whether `auth` may read `uri` as far as scopes go (authorizeRequest's rule, as a yes or no): a listen
 * stream hears of a resource only then, since a subscription covers the URIs below the one it
 * names, which the check at open time cannot all see (listen.ts).
 */
export function mayReadResource(env: AuthorizeEnv, uri: string, auth: AuthInfo | undefined): boolean {
  if (!env.access) return true;
  const scopes = scopesOfResource(env, uri);
  return scopes.length === 0 || (auth !== undefined && hasScopes(auth, scopes));
}

function scopesOfResource(env: AuthorizeEnv, uri: string | undefined): readonly string[] {
  if (uri === undefined) return [];
  const match = env.registry.findResource(uri);
  if (!match) return [];
  return (match.kind === "static" ? match.resource.scopes : match.template.definition.scopes) ?? [];
}
