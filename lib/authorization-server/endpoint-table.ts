import { SERVED_METHODS } from "../http/request-gate.mjs";
import { allowHeader, type RouteMethod } from "../http/route-methods";
import type { AuthServer } from "./better-auth-server";
import { AUTH_BASE_PATH } from "./paths";

/**
 * What each resource under /api/auth takes, read from better-auth's own endpoint definitions, the
 * ones its router is built from. The router answers a method a path lacks with the same 404 as a
 * path that is not there, and names the body types an endpoint reads only in its own refusal; the
 * route answers 405 with `Allow` (RFC 9110 §15.5.6: the target's methods, whatever was sent) and
 * a 415 naming the types from this table.
 */

export interface AuthEndpoint {
  /** The methods the resource takes (better-auth's, without HEAD and OPTIONS). */
  methods: readonly RouteMethod[];
  /** `Allow` for it. */
  allow: string;
  /** The body media types it reads. */
  mediaTypes: readonly string[];
}

export interface EndpointTable {
  /** The endpoint at `pathname` (the full path, /api/auth/…), or undefined when there is none. */
  at(pathname: string): AuthEndpoint | undefined;
}

/** What better-auth's router (better-auth 1.7.5, api/index.mjs) reads when an endpoint names no body type. */
const ROUTER_MEDIA_TYPES: readonly string[] = ["application/json"];

interface EndpointDefinition {
  segments: readonly string[];
  methods: readonly RouteMethod[];
  mediaTypes: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isRouteMethod(value: unknown): value is RouteMethod {
  return (SERVED_METHODS as readonly unknown[]).includes(value);
}

function stringsOf(value: unknown): string[] {
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === "string");
}

/** An endpoint the router serves, as better-call defines it: `path` and `options.method`, not SERVER_ONLY. */
function definitionOf(endpoint: unknown, disabled: ReadonlySet<string>): EndpointDefinition | undefined {
  if (typeof endpoint !== "function" && !isRecord(endpoint)) return undefined;
  const { path, options } = endpoint as { path?: unknown; options?: unknown };
  if (typeof path !== "string" || !isRecord(options) || disabled.has(path)) return undefined;
  const metadata = isRecord(options.metadata) ? options.metadata : {};
  if (metadata.SERVER_ONLY === true) return undefined;
  const named = stringsOf(options.method);
  const methods = named.includes("*") ? SERVED_METHODS.filter((m) => m !== "HEAD" && m !== "OPTIONS") : named.filter(isRouteMethod);
  const mediaTypes = stringsOf(metadata.allowedMediaTypes);
  return { segments: path.split("/"), methods, mediaTypes: mediaTypes.length > 0 ? mediaTypes : ROUTER_MEDIA_TYPES };
}

/** Whether `segments` (a request's path) is the path `pattern` names; `:name` stands for any one segment. */
function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  return pattern.length === segments.length && pattern.every((part, i) => (part.startsWith(":") ? segments[i] !== "" : part === segments[i]));
}

function tableOf(auth: AuthServer): EndpointTable {
  const disabled = new Set(auth.options.disabledPaths ?? []);
  const definitions = Object.values(auth.api as Record<string, unknown>)
    .map((endpoint) => definitionOf(endpoint, disabled))
    .filter((d): d is EndpointDefinition => d !== undefined && d.methods.length > 0);
  // A scan of some seventy short paths per request: nothing to cache (and no cache for made-up paths to fill).
  return {
    at(pathname) {
      if (!pathname.startsWith(`${AUTH_BASE_PATH}/`)) return undefined;
      const segments = pathname.slice(AUTH_BASE_PATH.length).split("/");
      const here = definitions.filter((d) => matches(d.segments, segments));
      if (here.length === 0) return undefined;
      const methods = SERVED_METHODS.filter((m) => here.some((d) => d.methods.includes(m)));
      return { methods, allow: allowHeader(methods), mediaTypes: [...new Set(here.flatMap((d) => d.mediaTypes))] };
    },
  };
}

const tables = new WeakMap<AuthServer, EndpointTable>();

/** `auth`'s endpoints (made once per instance). */
export function endpointTable(auth: AuthServer): EndpointTable {
  let table = tables.get(auth);
  if (!table) tables.set(auth, (table = tableOf(auth)));
  return table;
}
