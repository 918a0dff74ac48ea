import { NO_AUTH, type SecurityScheme } from "../mcp";
import type { ScopeCatalog } from "../auth/scope-catalog";

/**
 * WorldCrafter's OAuth scopes — the one table: the metadata's scopes_supported, the challenges,
 * the tools' securitySchemes and the resources' requirements all come from here. Write implies
 * read (basic/authorization: a broader scope implies the narrower one).
 */
export const Scope = {
  Read: "worlds:read",
  Write: "worlds:write",
} as const;

export const WORLD_SCOPES: ScopeCatalog = [
  { name: Scope.Read, description: "Read your worlds, characters and locations" },
  { name: Scope.Write, description: "Create, change and delete your worlds, characters and locations", implies: [Scope.Read] },
];

/** Tools that only read the caller's data. */
export const READS: readonly SecurityScheme[] = [{ type: "oauth2", scopes: [Scope.Read] }];
/** Tools that change the caller's data. */
export const WRITES: readonly SecurityScheme[] = [{ type: "oauth2", scopes: [Scope.Write] }];
/** Tools that touch no user data: anyone may call them. */
export const OPEN: readonly SecurityScheme[] = NO_AUTH;
