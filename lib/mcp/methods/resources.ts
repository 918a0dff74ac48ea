import { z } from "zod";
import { McpError } from "../../jsonrpc";
import { resourceNotFound } from "../protocol/errors";
import { withCacheHint, type CacheHint } from "../protocol/cache-hint";
import { cutText } from "../../text/cut-text";

/** Resource reads may be per-user: unless a definition says otherwise, nobody may reuse them. */
const PRIVATE_UNCACHED: CacheHint = { scope: "private", ttlMs: 0 };
import { createHandlerContext } from "../runtime/handler-context";
import { parseArgumentsOrInvalidParams, parseOrInvalidParams } from "../runtime/validate";
import type { MethodEnv, MethodHandler } from "./method-env";
import { CursorParams } from "./list-params";
import { listForRevision } from "./list-by-revision";

const UriParams = z.looseObject({ uri: z.string().min(1).max(2048) });

function requireResource(env: MethodEnv, uri: string) {
  const match = env.registry.findResource(uri);
  if (!match) throw resourceNotFound(uri);
  // A template variable is client text like any argument: %00 and its kin decode to control characters.
  if (match.kind === "template") parseArgumentsOrInvalidParams(z.record(z.string(), z.string()), match.variables, `variables of ${cutText(uri, 128)}`);
  return match;
}

export const listResources: MethodHandler = (env, { params, scope }) => {
  const { cursor } = parseOrInvalidParams(CursorParams, params);
  const page = env.registry.listResources(cursor);
  return listForRevision({ resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) }, "resources", scope.protocolVersion);
};

export const listResourceTemplates: MethodHandler = (env, { params, scope }) => {
  const { cursor } = parseOrInvalidParams(CursorParams, params);
  const page = env.registry.listResourceTemplates(cursor);
  return listForRevision({ resourceTemplates: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) }, "resourceTemplates", scope.protocolVersion);
};

export const readResource: MethodHandler = async (env, { params, scope }) => {
  const { uri } = parseOrInvalidParams(UriParams, params);
  const match = requireResource(env, uri);
  const ctx = createHandlerContext(scope, env.locales);
  const contents =
    match.kind === "static"
      ? await match.resource.read(ctx)
      : await match.template.definition.read(uri, match.variables, ctx);
  const hint = match.kind === "static" ? match.resource.cache : match.template.definition.cache;
  return withCacheHint({ contents }, hint ?? PRIVATE_UNCACHED);
};

export const subscribeResource: MethodHandler = async (env, { params, session }) => {
  const { uri } = parseOrInvalidParams(UriParams, params);
  requireResource(env, uri);
  if (!session) throw McpError.invalidRequest("resources/subscribe needs a session (this server runs stateless)");
  await session.subscribe(uri);
  return {};
};

export const unsubscribeResource: MethodHandler = async (_env, { params, session }) => {
  const { uri } = parseOrInvalidParams(UriParams, params);
  if (!session) throw McpError.invalidRequest("resources/unsubscribe needs a session (this server runs stateless)");
  await session.unsubscribe(uri);
  return {};
};
