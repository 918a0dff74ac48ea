import type { AuthInfo } from "../auth/auth-info";
import { ErrorCode, McpError } from "../jsonrpc";

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
  /** A slot for a long-lived stream (GET stream, subscriptions/listen); undefined when the caller has all its slots open. */
  openStream(caller: string): Promise<StreamSlot | undefined>;
}

/** The key requests are counted under: the subject; anonymous: the host's user hint, then the client IP. */
export function callerKey(request: Request, auth: AuthInfo | undefined, params: Record<string, unknown> | undefined): string {
  if (auth) return `sub:${auth.subject}`;
  const meta = params?._meta;
  const hint = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["openai/subject"] : undefined;
  if (typeof hint === "string" && hint.length > 0 && hint.length <= 256) return `hint:${hint}`;
  return `ip:${clientIp(request)}`;
}

/**
 * The client's address as the platform reports it: Vercel and Next's own server set
 * X-Forwarded-For (the first entry is the client); X-Real-IP is the other common spelling.
 */
export function clientIp(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const first = forwarded?.split(",", 1)[0]?.trim();
  if (first) return first.slice(0, 64);
  return request.headers.get("x-real-ip")?.trim().slice(0, 64) || "unknown";
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
