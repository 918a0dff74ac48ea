import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm, writeFile, link } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";

/**
 * The development issuer: with no authorization server configured, the server trusts tokens signed
 * by a key of its own, made on first run under `.data/` and published as a JWKS. `npm run token`
 * signs tokens with the same key for curl and tests. Never for production: the server refuses it
 * there unless explicitly allowed (lib/auth/auth-settings.ts).
 */

/** The subject `npm run token` and `npm run db:seed` use when none is named. */
export const DEV_SUBJECT = "dev-user";

const ALG = "ES256";
const KEY_FILE = "signing-key.json";

export interface DevKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

async function readKey(file: string): Promise<DevKey | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as DevKey;
    if (typeof parsed.kid === "string" && parsed.privateJwk?.kty && parsed.publicJwk?.kty) return parsed;
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code !== "ENOENT") throw thrown;
  }
  return undefined;
}

/**
 * The key in `dir`, made on first use. Several processes may start at once (two instances, a
 * test run): each writes a candidate to its own file and links it into place; link fails if the
 * key exists, and then everyone reads the one that won.
 */
export async function loadDevKey(dir: string): Promise<DevKey> {
  const folder = resolve(/*turbopackIgnore: true*/ process.cwd(), dir);
  const file = join(folder, KEY_FILE);
  const existing = await readKey(file);
  if (existing) return existing;
  await mkdir(folder, { recursive: true });
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), alg: ALG, use: "sig" };
  const kid = await calculateJwkThumbprint(publicJwk);
  const candidate: DevKey = { kid, privateJwk: { ...(await exportJWK(privateKey)), alg: ALG, kid }, publicJwk: { ...publicJwk, kid } };
  const temp = join(folder, `${KEY_FILE}.${randomUUID()}`);
  await writeFile(temp, JSON.stringify(candidate, null, 2), { mode: 0o600 });
  try {
    await link(temp, file);
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code !== "EEXIST") throw thrown;
  } finally {
    await rm(temp, { force: true });
  }
  const winner = await readKey(file);
  if (!winner) throw new Error(`the development signing key in ${folder} could not be read back`);
  return winner;
}

export function devJwks(key: DevKey): { keys: JWK[] } {
  return { keys: [key.publicJwk] };
}

export interface DevTokenClaims {
  issuer: string;
  audience: string;
  subject: string;
  scopes: readonly string[];
  clientId?: string;
  ttlSeconds?: number;
}

export async function signDevToken(key: DevKey, claims: DevTokenClaims): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, ALG);
  return new SignJWT({ scope: claims.scopes.join(" "), client_id: claims.clientId ?? "worldcrafter-dev" })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: "at+jwt" })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.subject)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(`${claims.ttlSeconds ?? 3600}s`)
    .sign(privateKey);
}
