import { failure, toMcpError, type ClassifiedMessage, type JsonRpcRequest, type JsonRpcResponse } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import type { MethodEnv } from "../../methods";
import type { Registry } from "../../registry";
import { authorizeRequest } from "../../policy/authorize";
import { budgetCallOf, rateLimitExceeded, rateLimitHeaders, spendOne, type RateLimitCall, type RateLimitDecision, type RequestLimiter } from "../../policy/rate-limit";

/** One message of a POST that needs an answer: a request to run, or its refusal. */
export type Slot = { kind: "request"; message: JsonRpcRequest } | { kind: "invalid"; response: JsonRpcResponse };

/**
 * A request the caller may make, or its refusal: alone, the refusal is the HTTP answer (401/403
 * with the challenge); inside a 2025-03-26 batch, it is that message's error.
 */
export function authorized(env: MethodEnv, message: JsonRpcRequest, auth: AuthInfo | undefined, batch: boolean): Slot {
  try {
    authorizeRequest(env, message.method, message.params, auth);
  } catch (thrown) {
    if (!batch) throw thrown;
    return { kind: "invalid", response: failure(message.id, toMcpError(thrown)) };
  }
  return { kind: "request", message };
}

/**
 * Notifications and client responses get no answer of their own, but cost work: each spends
 * the budget of "every other method" before any of them is handled.
 */
export async function spendUnanswered(limiter: RequestLimiter, caller: string, messages: readonly ClassifiedMessage[]): Promise<void> {
  for (const m of messages) {
    if (m.kind === "notification") await spendOne(limiter, { method: m.message.method, caller });
    else if (m.kind === "response") await spendOne(limiter, { method: "response", caller });
  }
}

/** A lone request's budget check, started before its session is known (post.ts). */
export interface CheckAhead {
  call: RateLimitCall;
  decision: RateLimitDecision | undefined | Promise<RateLimitDecision | undefined>;
  /** Taken by spendBudgets: from then on the request counts, whatever happens to it. */
  spent: boolean;
}

export function checkAhead(registry: Registry, limiter: RequestLimiter, caller: string, message: JsonRpcRequest): CheckAhead {
  const call = budgetCallOf(registry, message.method, message.params, caller);
  let decision: CheckAhead["decision"];
  try {
    decision = limiter.check(call);
  } catch (thrown) {
    decision = Promise.reject(thrown instanceof Error ? thrown : new Error(String(thrown)));
  }
  // Awaited only once the session is known: a failure must not count as unhandled meanwhile.
  if (decision instanceof Promise) decision.catch(() => undefined);
  return { call, decision, spent: false };
}

/** The request was refused before its budget counted (unknown session, 400, 403): what the check took goes back. */
export function giveBackAhead(limiter: RequestLimiter, ahead: CheckAhead): void {
  if (ahead.spent) return;
  const back = (decision: RateLimitDecision | undefined) => {
    if (decision?.allowed) void limiter.giveBack(ahead.call);
  };
  if (ahead.decision instanceof Promise) ahead.decision.then(back, () => undefined);
  else back(ahead.decision);
}

/**
 * Every request spends its budgets (seed 001 §rate limiting): alone, a refusal is the HTTP
 * answer (429 with Retry-After); inside a 2025-03-26 batch, it is that message's error. A
 * single request's answer carries its RateLimit-* headers, a batch's those of the budget with the
 * least left; `ahead`: its check, already started.
 */
export async function spendBudgets(registry: Registry, caller: string, slots: Slot[], batch: boolean, headers: Record<string, string>, limiter: RequestLimiter, ahead?: CheckAhead): Promise<void> {
  // A batch's answer carries the headers of its tightest budget: the one the client meets first
  // (outside probe, 2026-11-29: a batch's answer carried none).
  let tightest: RateLimitDecision | undefined;
  await Promise.all(
    slots.map(async (slot, index) => {
      if (slot.kind !== "request") return;
      if (ahead) ahead.spent = true;
      const decision = await (ahead ? ahead.decision : limiter.check(budgetCallOf(registry, slot.message.method, slot.message.params, caller)));
      if (!decision) return;
      if (!decision.allowed) {
        if (!batch) throw rateLimitExceeded(decision);
        slots[index] = { kind: "invalid", response: failure(slot.message.id, rateLimitExceeded(decision)) };
        return;
      }
      if (!batch) Object.assign(headers, rateLimitHeaders(decision));
      else if (!tightest || decision.remaining < tightest.remaining) tightest = decision;
    }),
  );
  if (tightest) Object.assign(headers, rateLimitHeaders(tightest));
}
