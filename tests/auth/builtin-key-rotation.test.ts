import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKeyRow, currentKeyRow, signAccessToken } from "../../lib/authorization-server/key-file";
import { callTool2026, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the built-in authorization server's key rotation reaches the resource
 * server without a restart. A key added to the key store is published in the JWKS beside the old
 * one, tokens signed with it are accepted (the in-process key set is read again on an unknown
 * kid), and tokens of the old key keep working during its grace period.
 */

let server: AuthServerUnderTest;
let keysDir = "";

beforeAll(async () => {
  keysDir = mkdtempSync(join(tmpdir(), "wc-rotation-keys-"));
  await currentKeyRow(keysDir);
  server = await startAuthServer({ MCP_AUTH_KEYS_DIR: keysDir, MCP_AUTH_JWKS_COOLDOWN_MS: "0" });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (keysDir) rmSync(keysDir, { recursive: true, force: true });
});

const claims = (subject: string) => ({ issuer: server.origin, audience: server.mcpUrl, subject, scopes: ["worlds:read"] });

describe("signing key rotation", () => {
  it("publishes the new key beside the old, accepts both keys' tokens", async () => {
    const old = await currentKeyRow(keysDir);
    const before = await signAccessToken(keysDir, claims("rotation-user"));
    expect((await callTool2026(server.mcpUrl, before, "list_worlds", {})).status).toBe(200);

    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const fresh = await addKeyRow(keysDir, { alg: "ES256", crv: "P-256", publicKey: JSON.stringify(await exportJWK(publicKey)), privateKey: JSON.stringify(await exportJWK(privateKey)), createdAt: new Date(Date.now() + 1000) });
    expect((await currentKeyRow(keysDir)).id).toBe(fresh.id);

    const jwks = (await (await fetch(`${server.origin}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([old.id, fresh.id].sort());

    const after = await signAccessToken(keysDir, claims("rotation-user"));
    expect((await callTool2026(server.mcpUrl, after, "list_worlds", {})).status).toBe(200);
    expect((await callTool2026(server.mcpUrl, before, "list_worlds", {})).status).toBe(200);
  });
});
