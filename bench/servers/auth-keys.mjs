/** The built-in authorization server's keys folder the bench's servers sign with, and the tokens the bench signs with it. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createJiti } from "jiti";
import { HOST, MCP_PATH } from "../config.mjs";
import { cleanups } from "../runner/cleanup.mjs";

// The keys folder (MCP_AUTH_KEYS_DIR) of the servers, the bench's own (removed at the end).
export const AUTH_KEYS_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "wc-bench-keys-"));
// The first clean-up registered, so the last one run.
cleanups.push(() => fs.rmSync(AUTH_KEYS_DIR, { recursive: true, force: true }));
export const keyFile = await createJiti(import.meta.url).import("../../lib/authorization-server/key-file.ts");

/**
 * The subjects the bench signs tokens for: `reader` owns the seeded worlds (the data rows read
 * them); `writer` is who create_world writes as, so the worlds it piles up are never in a read
 * row's results (every query filters by owner, on an index).
 */
export const SUBJECTS = { reader: keyFile.DEV_SUBJECT, writer: "bench-writer" };

/** A token for the server on `port`, for `subject`. */
export async function devToken(port, subject = SUBJECTS.reader) {
  const origin = `http://${HOST}:${port}`;
  return keyFile.signAccessToken(AUTH_KEYS_DIR, { issuer: origin, audience: `${origin}${MCP_PATH}`, subject, scopes: ["worlds:read", "worlds:write"], ttlSeconds: 24 * 3600 });
}
