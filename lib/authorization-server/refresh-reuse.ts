import type { AuthHookContext } from "./hook-context";
import { storedTokenValue } from "./refresh-scope";

/**
 * RFC 9700 §4.14.2 and OAuth 2.1 §4.3.1: a rotated refresh token presented again revokes the grant.
 * better-auth does so when the reuse comes after the rotation, but two refreshes with one token at
 * the same moment slipped through: both read it live, the first rotated it, and the second's
 * conditional update failed with a bare invalid_grant, leaving the first's new token working
 * (outside probe, 2026-11-29: live in 5 of 6 races). Whoever lost such a race presented a token
 * that had just been rotated away: that is a reuse, and the family ends here as better-auth ends it
 * (its refresh tokens, and the opaque access tokens issued with them, for that client and user).
 */

/** better-auth's database adapter, as its hooks are handed it. */
type Adapter = AuthHookContext["context"]["adapter"];

export interface RefreshOutcome {
  path: string;
  body: unknown;
  /** The endpoint's answer: an Error when it refused. */
  returned: unknown;
  adapter: Adapter;
}

interface RefreshRow {
  id: string;
  clientId: string;
  userId: string;
  revoked: Date | string | null;
}

/** The winner of the race inserts its new token right after its rotation: ended again after this long. */
const WINNER_INSERT_MS = 500;

/** The refresh token a refused refresh_token grant presented, if that is what `outcome` was. */
function refusedRefresh({ path, body, returned }: RefreshOutcome): string | undefined {
  if (path !== "/oauth2/token" || !(returned instanceof Error) || typeof body !== "object" || body === null) return undefined;
  const { grant_type, refresh_token } = body as Record<string, unknown>;
  return grant_type === "refresh_token" && typeof refresh_token === "string" ? refresh_token : undefined;
}

async function endFamily(adapter: Adapter, clientId: string, userId: string): Promise<void> {
  const family = [{ field: "clientId", value: clientId }, { field: "userId", value: userId }];
  const tokens = await adapter.findMany<{ id: string }>({ model: "oauthRefreshToken", where: family });
  if (tokens.length > 0) await adapter.deleteMany({ model: "oauthAccessToken", where: [{ field: "refreshId", operator: "in", value: tokens.map((t) => t.id) }] });
  await adapter.deleteMany({ model: "oauthRefreshToken", where: family });
}

/** After a refused refresh: if its token still exists, rotated away (revoked), end its family. */
export async function endFamilyOfRacedRefresh(outcome: RefreshOutcome): Promise<void> {
  const presented = refusedRefresh(outcome);
  if (presented === undefined) return;
  const row = await outcome.adapter.findOne<RefreshRow>({ model: "oauthRefreshToken", where: [{ field: "token", value: storedTokenValue(presented) }] });
  // Gone: better-auth ended the family itself (a reuse after the rotation), or it never existed.
  if (!row || row.revoked === null) return;
  await endFamily(outcome.adapter, row.clientId, row.userId);
  await new Promise((resolve) => setTimeout(resolve, WINNER_INSERT_MS));
  await endFamily(outcome.adapter, row.clientId, row.userId);
}
