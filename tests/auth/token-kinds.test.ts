import { randomUUID } from "node:crypto";
import { SignJWT, importJWK, type JWK, type JWTHeaderParameters } from "jose";
import { describe, expect, inject, it } from "vitest";
import { currentKeyRow, SIGNING_ALG } from "../../lib/authorization-server/key-file";
import { tokenFor } from "../support/auth";
import { callTool2026 } from "../support/oauth-server";

/**
 * What this file proves: /api/mcp, whose issuer is the built-in authorization server, takes only
 * that server's access tokens — not another JWT it signs with the same keys, nor a token bound to
 * a key the request cannot prove it holds:
 * - RFC 9068 §4: the typ header must be at+jwt. better-auth's session JWT (GET /api/auth/token)
 *   has none; with MCP_RESOURCE_URL an origin its audience would match, and it passed;
 * - RFC 9449: a DPoP-bound token (cnf.jkt) is good only with a DPoP proof, which a Bearer request
 *   never carries; accepting it as Bearer undid the binding.
 * Each token is signed with the server's real key (the keys folder of the test servers) and
 * differs from a good one in that one respect.
 */
const server = () => inject("statefulUrl");
const mcpUrl = () => `${server()}/api/mcp`;

async function signed(header: Partial<JWTHeaderParameters>, claims: Record<string, unknown> = {}): Promise<string> {
  const key = await currentKeyRow(inject("devIssuerDir"));
  const alg = key.alg ?? SIGNING_ALG;
  const privateKey = await importJWK(JSON.parse(key.privateKey) as JWK, alg);
  return new SignJWT({ scope: "worlds:read worlds:write", client_id: "token-kinds", ...claims })
    .setProtectedHeader({ alg, kid: key.id, ...header })
    .setIssuer(new URL(server()).origin)
    .setAudience(mcpUrl())
    .setSubject(`token-kinds-${randomUUID().slice(0, 8)}`)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime("5m")
    .sign(privateKey);
}

describe("tokens of the built-in authorization server", () => {
  it("an at+jwt access token works (control), in either spelling of the type", async () => {
    expect((await callTool2026(mcpUrl(), await tokenFor(server(), "token-kinds-control"), "list_worlds", {})).status).toBe(200);
    expect((await callTool2026(mcpUrl(), await signed({ typ: "application/at+jwt" }), "list_worlds", {})).status).toBe(200);
  });

  it.each([
    ["no typ (better-auth's session JWT)", {}],
    ["typ JWT", { typ: "JWT" }],
    ["typ of a logout token", { typ: "logout+jwt" }],
  ])("a JWT that is not an access token is 401 invalid_token: %s", async (_what, header) => {
    const res = await callTool2026(mcpUrl(), await signed(header), "list_worlds", {});
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it.each([
    ["DPoP (cnf.jkt)", { cnf: { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" } }],
    ["mutual TLS (cnf.x5t#S256)", { cnf: { "x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2" } }],
  ])("a key-bound access token presented as Bearer is 401 invalid_token: %s", async (_what, claims) => {
    const res = await callTool2026(mcpUrl(), await signed({ typ: "at+jwt" }, claims), "list_worlds", {});
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });
});
