import { hkdfSync, randomBytes } from "node:crypto";
import type { Env } from "../../config/env";
import { developmentSecret } from "../../authorization-server/key-file";

/**
 * The HMAC key of download links, derived (HKDF-SHA256, its own `info`) from the secret the
 * deployment already has, so no new variable is needed and the key differs from every other use
 * of that secret: BETTER_AUTH_SECRET (the built-in authorization server's, required in
 * production), else MCP_REQUEST_STATE_SECRET (requestState's, shared by all instances), else —
 * outside production — the development secret the built-in authorization server keeps in its
 * keys folder, else a per-process key (links then open only on the instance that made them).
 */

const INFO = "worldcrafter download link v1";

let warned = false;
let processKey: Buffer | undefined;
const derived = new Map<string, Buffer>();

function derive(secret: string): Buffer {
  let key = derived.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), INFO, 32));
    derived.set(secret, key);
  }
  return key;
}

type KeyEnv = Pick<Env, "BETTER_AUTH_SECRET" | "MCP_REQUEST_STATE_SECRET" | "MCP_AUTH_KEYS_DIR" | "NODE_ENV">;

export async function downloadLinkKey(env: KeyEnv): Promise<Buffer> {
  const configured = env.BETTER_AUTH_SECRET ?? env.MCP_REQUEST_STATE_SECRET;
  if (configured) return derive(configured);
  if (env.NODE_ENV !== "production") return derive(await developmentSecret(env.MCP_AUTH_KEYS_DIR ?? ".data/auth-keys"));
  if (!warned) {
    warned = true;
    process.stderr.write("Neither BETTER_AUTH_SECRET nor MCP_REQUEST_STATE_SECRET is set: download links are signed with a per-process key (they open only on the instance that made them)\n");
  }
  processKey ??= randomBytes(32);
  return processKey;
}
