import type { AuthInfo } from "../../auth/auth-info";

/**
 * How long a long-lived stream (a session's GET stream, a listen) may stay open: its configured
 * lifetime, or less, so that it ends when the token that opened it expires. An open stream never
 * shows its token again: it went on delivering its user's notifications after the token had
 * expired, while every new request with it was refused 401 (outside probe, 2026-11-29). Ended,
 * its client reconnects with a fresh token, as at the end of any lifetime (basic/transports).
 * Whole seconds: streams of one lifetime share one timer (stream-clock.ts), so the lengths stay few.
 */
export function streamLifetimeMs(maxMs: number, auth: AuthInfo | undefined, now = Date.now()): number {
  if (auth?.expiresAt === undefined) return maxMs;
  const left = Math.floor((auth.expiresAt * 1000 - now) / 1000) * 1000;
  return Math.max(1_000, Math.min(maxMs, left));
}
