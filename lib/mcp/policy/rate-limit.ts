import type { AuthInfo } from "../../auth/auth-info";
import { ErrorCode, McpError } from "../../jsonrpc";
import { addressIdentity } from "../../http/address-identity.mjs";
import type { Registry } from "../registry";

/**
 * Rate limits as the core sees them (seed 001 §rate limiting): a decision per JSON-RPC request,
 * keyed by who is calling, and a cap on long-lived streams per caller. Where the counters live
 * (in process, Redis, Upstash) is the adapter's business (lib/ratelimit).
 */

export interface RateLimitCall {
  method: string;
  /** tools/call: the tool, for per-tool budgets. */
  tool?: string;
  caller: string;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window frees up again (epoch ms). */
  resetAt: number;
}

export interface StreamSlot {
  release(): void;
}

export interface RequestLimiter {
  /** Streams one caller may hold open at once. */
  readonly maxStreams: number;
  /** The decision for one request; undefined when no budget applies to it. */
  check(call: RateLimitCall): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined>;
  /**
   * Undo an allowed check: the request was refused before it ran (a budget checked while its
   * session was still being looked up, transport/session/post.ts). Never rejects; failures are logged.
   */
  giveBack(call: RateLimitCall): Promise<void>;
  /** A slot for a long-lived stream (GET stream, subscriptions/listen); undefined when the caller has all its slots open. */
  openStream(caller: string): Promise<StreamSlot | undefined>;
  /**
   * Whether openStream would grant the caller a slot now, taking none: HEAD answers as GET would
   * (RFC 9110 §9.3.2) without holding a stream.
   */
  streamSlotFree(caller: string): Promise<boolean>;
}

/**
 * What a request spends (the one place that decides it): a tools/call its tool's budgets and
 * tools/call's; a resources/read of a resource that does a tool's work (`spendsToolBudget`, e.g.
 * a whole world export) the same as calling that tool; anything else its method's budget.
 */
export function budgetCallOf(registry: Registry, method: string, params: Readonly<Record<string, unknown>> | undefined, caller: string): RateLimitCall {
  if (method === "tools/call") {
    const name = params?.name;
    return typeof name === "string" ? { method, tool: name, caller } : { method, caller };
  }
  if (method === "resources/read" && typeof params?.uri === "string") {
    const found = registry.findResource(params.uri);
    const tool = found?.kind === "static" ? found.resource.spendsToolBudget : found?.template.definition.spendsToolBudget;
    if (tool) return { method: "tools/call", tool, caller };
  }
  return { method, caller };
}

/**
 * The key requests are counted under: the token's subject; anonymous callers by the client's
 * address as a trusted source reports it (lib/http/client-address.ts), an IPv6 one by its /64
 * (lib/http/address-identity.mjs: one client holds a whole /64). Client hints such as
 * `_meta["openai/subject"]` never choose a budget: a fresh value per request would be a fresh one.
 * Budgets, open streams and sessions per caller all count under this key.
 */
export function callerKey(clientAddress: string, auth: AuthInfo | undefined): string {
  return auth ? subjectKey(auth.subject) : `ip:${addressIdentity(clientAddress)}`;
}

/** The key of a token subject's budgets, for work done on its behalf outside /api/mcp (download links). */
export function subjectKey(subject: string): string {
  return `sub:${subject}`;
}

/**
 * One request kind that has no answer of its own to carry a refusal (initialize before a session,
 * notifications, client responses, GET, DELETE): its budget is spent, and a spent budget is the
 * HTTP answer (429). Returns the RateLimit-* headers of the decision.
 */
export async function spendOne(limiter: RequestLimiter, call: RateLimitCall): Promise<Record<string, string>> {
  const checking = limiter.check(call);
  const decision = checking instanceof Promise ? await checking : checking;
  if (!decision) return {};
  if (!decision.allowed) throw rateLimitExceeded(decision);
  return rateLimitHeaders(decision);
}

const secondsUntil = (at: number) => Math.max(1, Math.ceil((at - Date.now()) / 1000));

/** The IETF RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers) for a decision. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(Math.max(0, decision.remaining)),
    "RateLimit-Reset": String(secondsUntil(decision.resetAt)),
  };
}

/** Seed 001's refusal: HTTP 429, Retry-After, -32000 "Rate limit exceeded" with data.retryAfter. */
export function rateLimitExceeded(decision: RateLimitDecision): McpError {
  const retryAfter = secondsUntil(decision.resetAt);
  return new McpError(ErrorCode.RateLimited, "Rate limit exceeded", { retryAfter }, 429, {
    "Retry-After": String(retryAfter),
    ...rateLimitHeaders(decision),
  });
}

/** Too many streams open at once for one caller (seed 001: 5 concurrent streaming connections). */
export function tooManyStreams(max: number): McpError {
  const retryAfter = 5;
  return new McpError(ErrorCode.RateLimited, "Rate limit exceeded", { retryAfter, reason: `at most ${max} streams may be open at once` }, 429, {
    "Retry-After": String(retryAfter),
  });
}

/** The limiter cannot decide (its store is down) and the policy is to fail closed. */
export function limiterUnavailable(): McpError {
  return new McpError(ErrorCode.RateLimited, "Rate limiter unavailable: try again shortly", { retryAfter: 5 }, 503, { "Retry-After": "5" });
}
