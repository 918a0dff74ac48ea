import type { createAuthMiddleware } from "better-auth/api";

/** What better-auth hands a before- or after-hook (createAuthMiddleware's context). */
export type AuthHookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];
