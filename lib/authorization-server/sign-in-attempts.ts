import type { BetterAuthPlugin } from "@better-auth/core";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { RequestCounter } from "./request-counts";
import type { AuthServerSettings } from "./settings";

/**
 * Failed e-mail sign-ins per account (MCP_AUTH_SIGN_IN_ATTEMPTS in MCP_AUTH_SIGN_IN_WINDOW_SECONDS),
 * counted in the database so every instance counts together; per address, better-auth's own
 * limiter counts every sign-in (request-counts.ts).
 *
 * An attempt is counted before the password is checked, in one atomic step, so parallel guesses
 * cannot all pass a count that none of them has raised yet; a sign-in that succeeds is then taken
 * back. The count is thus the failures (and the attempts still running): a person who signs in
 * often is never refused for it, which an earlier version did after ten sign-ins in a window
 * (outside review, 2026-11-28). Once over, even the right password waits out the window: the
 * account is what is limited.
 */

const SIGN_IN = "/sign-in/email";

function accountKey(body: unknown): string | undefined {
  const email = typeof body === "object" && body !== null ? (body as Record<string, unknown>).email : undefined;
  const normalized = typeof email === "string" ? email.trim().toLowerCase() : "";
  return normalized ? `sign-in-account:${normalized}` : undefined;
}

export function signInAttempts(settings: AuthServerSettings, counter: RequestCounter) {
  const window = settings.signIn.windowSeconds;
  return {
    id: "worldcrafter-sign-in-attempts",
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === SIGN_IN,
          handler: createAuthMiddleware(async (ctx) => {
            const key = accountKey(ctx.body);
            if (!key) return;
            const counted = await counter.count(key, window);
            if (counted.count > settings.signIn.attemptsPerAccount) {
              // Retry-After as on the per-address 429s (RFC 9110 §10.2.3): when the window ends.
              const retryAfter = String(Math.max(1, Math.ceil(counted.msLeft / 1000)));
              throw new APIError("TOO_MANY_REQUESTS", { message: "Too many sign-in attempts for this account: wait a few minutes and try again.", code: "TOO_MANY_ATTEMPTS" }, { "Retry-After": retryAfter });
            }
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => ctx.path === SIGN_IN,
          handler: createAuthMiddleware(async (ctx) => {
            const key = accountKey(ctx.body);
            const returned: unknown = ctx.context.returned;
            // An APIError (wrong password, unknown account…) stays counted; so does a throw of
            // anything else, which never reaches this hook.
            if (key && returned !== undefined && !(returned instanceof Error)) await counter.uncount(key, window);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
