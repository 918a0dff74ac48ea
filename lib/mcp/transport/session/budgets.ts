import { failure, toMcpError, type ClassifiedMessage, type JsonRpcRequest, type JsonRpcResponse } from "../../../jsonrpc";
import type { AuthInfo } from "../../../auth/auth-info";
import type { MethodEnv } from "../../methods";
import { authorizeRequest } from "../../policy/authorize";
import { rateLimitExceeded, rateLimitHeaders, spendOne, type RequestLimiter } from "../../policy/rate-limit";

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

/**
 * Every request spends its budgets (seed 001 §rate limiting): alone, a refusal is the HTTP
 * answer (429 with Retry-After); inside a 2025-03-26 batch, it is that message's error. A
 * single request's answer carries its RateLimit-* headers.
 */
export async function spendBudgets(caller: string, slots: Slot[], batch: boolean, headers: Headers, limiter: RequestLimiter): Promise<void> {
  await Promise.all(
    slots.map(async (slot, index) => {
      if (slot.kind !== "request") return;
      const { method, params } = slot.message;
      const tool = method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
      const decision = await limiter.check({ method, ...(tool ? { tool } : {}), caller });
      if (!decision) return;
      if (!decision.allowed) {
        if (!batch) throw rateLimitExceeded(decision);
        slots[index] = { kind: "invalid", response: failure(slot.message.id, rateLimitExceeded(decision)) };
        return;
      }
      if (!batch) for (const [k, v] of Object.entries(rateLimitHeaders(decision))) headers.set(k, v);
    }),
  );
}
