import { randomBytes, randomUUID } from "node:crypto";
import { link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";

/**
 * The signing keys in a folder instead of the database (MCP_AUTH_KEYS_DIR; the development
 * default). better-auth's JWT plugin reads and adds keys here through its key adapter, and
 * `npm run token` and the tests sign with the same file while the server runs — which the
 * embedded database (one process per folder) would not allow. The folder also keeps the
 * development secret, so sessions survive a restart of `npm run dev`.
 *
 * A key is stored as better-auth stores a `jwks` row: the id is the `kid`, the JWKs are JSON
 * strings. Private keys in this file are not encrypted (0600, git-ignored, development and tests).
 */

/** The subject `npm run token` and `npm run db:seed` use when none is named. */
export const DEV_SUBJECT = "dev-user";

/** The algorithm of new keys: ES256 is the one every JOSE library verifies. */
export const SIGNING_ALG = "ES256" satisfies KeyAlg;

/** The algorithms better-auth signs with. */
export type KeyAlg = "RS256" | "PS256" | "ES256" | "ES512" | "EdDSA";

export interface KeyRow {
  id: string;
  publicKey: string;
  privateKey: string;
  createdAt: Date;
  expiresAt?: Date;
  alg?: KeyAlg;
  crv?: "Ed25519" | "P-256" | "P-521";
}

interface StoredRow extends Omit<KeyRow, "createdAt" | "expiresAt"> {
  createdAt: string;
  expiresAt?: string;
}

const KEYS_FILE = "keys.json";
const SECRET_FILE = "secret";

function folderOf(dir: string): string {
  return resolve(/*turbopackIgnore: true*/ process.cwd(), dir);
}

function revive({ createdAt, expiresAt, ...row }: StoredRow): KeyRow {
  return { ...row, createdAt: new Date(createdAt), ...(expiresAt ? { expiresAt: new Date(expiresAt) } : {}) };
}

/** Every key in the folder, oldest first; none when the file does not exist yet. */
export async function readKeyRows(dir: string): Promise<KeyRow[]> {
  try {
    const parsed = JSON.parse(await readFile(join(folderOf(dir), KEYS_FILE), "utf8")) as { keys?: StoredRow[] };
    return (parsed.keys ?? []).map(revive);
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw thrown;
  }
}

async function writeAtomically(file: string, text: string, exclusive: boolean): Promise<void> {
  const temp = `${file}.${randomUUID()}`;
  await writeFile(temp, text, { mode: 0o600 });
  try {
    // link() fails when the file exists: the first of several processes starting at once wins.
    if (exclusive) await link(temp, file);
    else await rename(temp, file);
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code !== "EEXIST") throw thrown;
  } finally {
    await rm(temp, { force: true });
  }
}

/** Adds a key (better-auth's createJwk, or the first key made here) and returns it with its id. */
export async function addKeyRow(dir: string, row: Omit<KeyRow, "id"> & { id?: string }): Promise<KeyRow> {
  const folder = folderOf(dir);
  await mkdir(folder, { recursive: true });
  const existing = await readKeyRows(dir);
  const id = row.id ?? (await calculateJwkThumbprint(JSON.parse(row.publicKey) as JWK));
  const added: KeyRow = { ...row, id };
  const rows = [...existing, added].map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), ...(r.expiresAt ? { expiresAt: r.expiresAt.toISOString() } : {}) }));
  await writeAtomically(join(folder, KEYS_FILE), JSON.stringify({ keys: rows }, null, 2), existing.length === 0);
  // Another process may have written the first key at the same moment: read back what won.
  return (await readKeyRows(dir)).find((r) => r.id === id) ?? (await readKeyRows(dir)).at(-1) ?? added;
}

/** A new key pair as a row, for a folder that has none yet. */
async function newKeyRow(): Promise<Omit<KeyRow, "id">> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  return { alg: SIGNING_ALG, crv: "P-256", publicKey: JSON.stringify(await exportJWK(publicKey)), privateKey: JSON.stringify(await exportJWK(privateKey)), createdAt: new Date() };
}

/** The key tokens are signed with now: the newest one not expired, made when there is none. */
export async function currentKeyRow(dir: string): Promise<KeyRow> {
  const now = Date.now();
  const live = (await readKeyRows(dir)).filter((r) => !r.expiresAt || r.expiresAt.getTime() > now);
  return live.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0] ?? addKeyRow(dir, await newKeyRow());
}

/** The development secret kept beside the keys (used only when BETTER_AUTH_SECRET is unset outside production). */
export async function developmentSecret(dir: string): Promise<string> {
  const file = join(folderOf(dir), SECRET_FILE);
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code !== "ENOENT") throw thrown;
  }
  await mkdir(folderOf(dir), { recursive: true });
  await writeAtomically(file, randomBytes(32).toString("base64url"), true);
  return (await readFile(file, "utf8")).trim();
}

export interface AccessTokenClaims {
  issuer: string;
  audience: string;
  subject: string;
  scopes: readonly string[];
  clientId?: string;
  ttlSeconds?: number;
}

/**
 * An access token signed with the folder's current key, shaped as the authorization server's
 * own (RFC 9068 `at+jwt`): for `npm run token`, scripts and tests.
 */
export async function signAccessToken(dir: string, claims: AccessTokenClaims): Promise<string> {
  const key = await currentKeyRow(dir);
  const alg = key.alg ?? SIGNING_ALG;
  const privateKey = await importJWK(JSON.parse(key.privateKey) as JWK, alg);
  const clientId = claims.clientId ?? "worldcrafter-cli";
  return new SignJWT({ scope: claims.scopes.join(" "), client_id: clientId, azp: clientId })
    .setProtectedHeader({ alg, kid: key.id, typ: "at+jwt" })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.subject)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(`${claims.ttlSeconds ?? 3600}s`)
    .sign(privateKey);
}

/** The folder's public keys as a JWKS (what the server publishes when its keys live here). */
export async function publicJwks(dir: string): Promise<{ keys: JWK[] }> {
  return { keys: (await readKeyRows(dir)).map((row) => ({ ...(JSON.parse(row.publicKey) as JWK), kid: row.id, alg: row.alg ?? SIGNING_ALG, use: "sig" })) };
}
