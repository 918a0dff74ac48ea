import type { AuthInfo } from "../../auth/auth-info";
import { toMcpError, type McpError } from "../../jsonrpc";
import { authorizeRequest } from "../policy/authorize";
import type { MethodEnv } from "../methods";
import { budgetCallOf, rateLimitExceeded, type RateLimitDecision, type RequestLimiter } from "../policy/rate-limit";

/**
 * The checks a request made inside another (a call of tools/batch) passes as if it had come
 * alone: authorization, then its rate-limit budgets. Returns the refusal, or undefined.
 */
export function admitter(
  env: MethodEnv,
  limiter: RequestLimiter | undefined,
  caller: string,
  auth: AuthInfo | undefined,
): (method: string, params: Record<string, unknown>) => McpError | undefined | Promise<McpError | undefined> {
  return (method, params) => {
    try {
      authorizeRequest(env, method, params, auth);
    } catch (thrown) {
      return toMcpError(thrown);
    }
    if (!limiter) return undefined;
    const judge = (decision: RateLimitDecision | undefined) => (decision && !decision.allowed ? rateLimitExceeded(decision) : undefined);
    try {
      const checking = limiter.check(budgetCallOf(env.registry, method, params, caller));
      return checking instanceof Promise ? checking.then(judge, (thrown: unknown) => toMcpError(thrown)) : judge(checking);
    } catch (thrown) {
      return toMcpError(thrown);
    }
  };
}
