import type { JSONWebKeySet, JWK } from "jose";
import { sql } from "../db/prisma";
import { readKeyRows, SIGNING_ALG, type KeyRow } from "./key-file";

/**
 * The built-in authorization server's JWKS, read straight from where its keys are kept (the keys
 * folder, or the `jwks` table in one plain statement) rather than through better-auth. Verifying
 * an MCP request's token needs only these public keys; going through better-auth would load it,
 * the Prisma client and its query compiler first — most of the first authenticated request's
 * time after a cold start (bench/PROFILING.md, round 9). The result is what better-auth's jwt
 * plugin publishes for the same rows (its `getJwks`; tests/auth/published-keys.test.ts compares
 * the two), so the keys a token is checked with and the JWKS route's keys stay one set.
 */

/** How long a key stays published after it expires, so the tokens it signed still verify. */
export const KEY_GRACE_SECONDS = 30 * 24 * 3600;

/** What publishing needs of a stored key. */
export type PublicKeyRow = Pick<KeyRow, "id" | "publicKey" | "alg" | "crv" | "expiresAt">;

// Timestamps as UTC (the columns are `timestamp` without a zone, as Prisma writes them).
const KEY_ROWS = `SELECT id, "publicKey", alg, crv, "expiresAt" AT TIME ZONE 'UTC' AS "expiresAt" FROM jwks`;

/** The stored keys: in `keysDir` when the server keeps them in a folder, else in the database. */
export async function storedKeyRows(keysDir: string | undefined): Promise<PublicKeyRow[]> {
  if (keysDir) return readKeyRows(keysDir);
  const rows = await sql<Omit<PublicKeyRow, "expiresAt"> & { expiresAt: Date | null }>(KEY_ROWS, []);
  return rows.map(({ expiresAt, ...row }) => ({ ...row, ...(expiresAt ? { expiresAt } : {}) }));
}

/** better-auth's published form of `rows`: keys past their grace period left out, `kid` = the row's id. */
export function publishedJwks(rows: readonly PublicKeyRow[], now = Date.now()): JSONWebKeySet {
  const graceMs = KEY_GRACE_SECONDS * 1000;
  return {
    keys: rows
      .filter((row) => !row.expiresAt || row.expiresAt.getTime() + graceMs > now)
      .map((row): JWK => ({ alg: row.alg ?? SIGNING_ALG, ...(row.crv ? { crv: row.crv } : {}), ...(JSON.parse(row.publicKey) as JWK), kid: row.id })),
  };
}
