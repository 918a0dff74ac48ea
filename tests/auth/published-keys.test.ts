import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { AuthServerSettings } from "../../lib/authorization-server/settings";
import { migratedTestSchema, type TestSchema } from "../support/test-database";

/**
 * What this file proves: the built-in authorization server's JWKS — what every token is verified
 * with and what /.well-known/jwks.json publishes — is read from its key store without building
 * better-auth (and so without the Prisma client and its query compiler), and equals better-auth's
 * own getJwks for the same keys: live keys, a key expired within its grace period, and not a key
 * past it. Both key stores: the database's `jwks` table and a keys folder. With no key stored,
 * better-auth makes the first one, as before.
 */

// Counts better-auth builds, the real build still running.
const builds = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../lib/authorization-server/better-auth-server", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../lib/authorization-server/better-auth-server")>();
  return {
    ...actual,
    buildAuthServer: (settings: AuthServerSettings) => {
      builds.count += 1;
      return actual.buildAuthServer(settings);
    },
  };
});

const DAY_MS = 24 * 3600 * 1000;
let schema: TestSchema;

beforeAll(async () => {
  // lib/db's process-wide database comes from process.env on first use.
  schema = await migratedTestSchema("wc_jwks");
  process.env.DATABASE_URL = schema.url;
}, 90_000);

afterAll(async () => {
  const { closePrisma } = await import("../../lib/db/prisma");
  await closePrisma();
  await schema?.drop();
});

beforeEach(() => {
  builds.count = 0;
});

async function builtinServer(keysDir: string | undefined) {
  const [{ createBuiltinAuthorizationServer }, { WORLD_SCOPES }] = await Promise.all([import("../../lib/authorization-server/auth-server"), import("../../lib/worlds/scopes")]);
  return createBuiltinAuthorizationServer({
    issuer: "http://127.0.0.1:9",
    resourceUrl: "http://127.0.0.1:9/api/mcp",
    resourceName: "WorldCrafter",
    scopes: WORLD_SCOPES,
    secret: "test-only-better-auth-secret-0123456789abcdef",
    keysDir,
    signUp: { open: false, domains: [] },
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlSeconds: 86_400,
    signIn: { attemptsPerAccount: 5, attemptsPerAddress: 25, windowSeconds: 60 },
    addressLimits: false,
    perMinute: { token: 600, register: 60 },
  });
}

/** A key that expired `daysAgo` days ago (its private half is never read when publishing). */
async function expiredKey(id: string, daysAgo: number) {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { id, alg: "ES256" as const, crv: "P-256" as const, publicKey: JSON.stringify(await exportJWK(publicKey)), privateKey: "{}", createdAt: new Date(Date.now() - 100 * DAY_MS), expiresAt: new Date(Date.now() - daysAgo * DAY_MS) };
}

const kids = (jwks: { keys: { kid?: string }[] }) => jwks.keys.map((k) => k.kid).sort();
/** A JWKS with its keys in kid order: a key set has no order, and neither SQL read orders its rows. */
const byKid = <K extends { kid?: string }>(jwks: { keys: K[] }) => ({ ...jwks, keys: [...jwks.keys].sort((a, b) => String(a.kid).localeCompare(String(b.kid))) });

describe("the built-in server's JWKS", () => {
  it("on the database: better-auth makes the first key; then the keys are read without it, as it publishes them", async () => {
    const first = await builtinServer(undefined);
    const made = await first.jwks();
    expect(builds.count).toBe(1);
    expect(made.keys).toHaveLength(1);

    const { sql } = await import("../../lib/db/prisma");
    for (const key of [await expiredKey("within-grace", 10), await expiredKey("past-grace", 40)]) {
      await sql(`INSERT INTO jwks (id, "publicKey", "privateKey", "createdAt", "expiresAt", alg, crv) VALUES ($1, $2, $3, $4::timestamptz AT TIME ZONE 'UTC', $5::timestamptz AT TIME ZONE 'UTC', $6, $7)`, [
        key.id,
        key.publicKey,
        key.privateKey,
        key.createdAt,
        key.expiresAt,
        key.alg,
        key.crv,
      ]);
    }

    builds.count = 0;
    const server = await builtinServer(undefined);
    const direct = await server.jwks();
    expect(builds.count).toBe(0);
    expect(kids(direct)).toEqual([made.keys[0]!.kid, "within-grace"].sort());
    expect(byKid(direct)).toEqual(byKid(await (await server.auth()).api.getJwks()));
  });

  it("in a keys folder: read without better-auth, as it publishes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wc-jwks-keys-"));
    try {
      const { addKeyRow, currentKeyRow } = await import("../../lib/authorization-server/key-file");
      const live = await currentKeyRow(dir);
      await addKeyRow(dir, await expiredKey("within-grace", 10));
      await addKeyRow(dir, await expiredKey("past-grace", 40));

      const server = await builtinServer(dir);
      const direct = await server.jwks();
      expect(builds.count).toBe(0);
      expect(kids(direct)).toEqual([live.id, "within-grace"].sort());
      expect(byKid(direct)).toEqual(byKid(await (await server.auth()).api.getJwks()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
