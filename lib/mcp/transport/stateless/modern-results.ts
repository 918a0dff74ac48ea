import { ErrorCode, McpError, preserialize, serializedOf } from "../../../jsonrpc";
import { cacheHintOf, type CacheHint } from "../../protocol/cache-hint";
import { MetaKey } from "../../protocol/meta-keys";
import type { ServerIdentity } from "../../protocol/server-info";
import { withoutIcons } from "../../protocol/icons";

/** Results the 2026-07-28 schema makes cacheable (CacheableResult: ttlMs and cacheScope required). */
const CACHEABLE = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"]);
const LISTS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "server/discover"]);

/**
 * The 2026-07-28 edge of results: `resultType` on every result, serverInfo in `_meta`
 * (basic/index §result _meta), `ttlMs`/`cacheScope` where the schema requires them. Lists of the
 * static registry are public; reads say what their definition says (private by default).
 */
export class ModernResults {
  /** Decorated copies of preserialized results (list pages), made once per page. */
  private readonly decorated = new WeakMap<object, Record<string, unknown>>();

  private readonly serverInfoMeta: Record<string, unknown>;
  /** serverInfo on every result but server/discover: without icons (data: URIs), kept off the hot path. */
  private readonly info: ServerIdentity;

  constructor(
    private readonly fullInfo: ServerIdentity,
    private readonly listCache: CacheHint,
  ) {
    this.info = withoutIcons(fullInfo);
    this.serverInfoMeta = Object.freeze({ [MetaKey.ServerInfo]: this.info });
  }

  complete(method: string, result: Record<string, unknown>): Record<string, unknown> {
    if (serializedOf(result) !== undefined) {
      const known = this.decorated.get(result);
      if (known) return known;
      const made = preserialize(this.decorate(method, result));
      this.decorated.set(result, made);
      return made;
    }
    return this.decorate(method, result);
  }

  inputRequired(inputRequests: Record<string, unknown>, requestState: string): Record<string, unknown> {
    return { resultType: "input_required", inputRequests, requestState, _meta: this.meta(undefined) };
  }

  /** Codes this era renamed: resource not found is -32602 now (changelog), with the uri kept in data. */
  error(error: McpError): McpError {
    if (error.code === ErrorCode.ResourceNotFound) return new McpError(ErrorCode.InvalidParams, error.message, error.data);
    return error;
  }

  private decorate(method: string, result: Record<string, unknown>): Record<string, unknown> {
    // server/discover describes the server in full, icons included (basic §icons).
    const _meta = method === "server/discover" ? { ...(result._meta as Record<string, unknown> | undefined), [MetaKey.ServerInfo]: this.fullInfo } : this.meta(result._meta);
    const out: Record<string, unknown> = { resultType: "complete", ...result, _meta };
    if (CACHEABLE.has(method)) {
      const hint = LISTS.has(method) ? this.listCache : (cacheHintOf(result) ?? { scope: "private", ttlMs: 0 });
      out.ttlMs = hint.ttlMs;
      out.cacheScope = hint.scope;
    }
    return out;
  }

  private meta(existing: unknown): Record<string, unknown> {
    // Most results carry no _meta of their own: they share one frozen object.
    if (typeof existing !== "object" || existing === null) return this.serverInfoMeta;
    return { ...(existing as Record<string, unknown>), [MetaKey.ServerInfo]: this.info };
  }
}
