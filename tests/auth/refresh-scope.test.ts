import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow } from "../support/oauth-flow";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: RFC 6749 §6 on the built-in server. A refresh may ask for a narrower
 * access token, but the refresh token it gets is identical in scope to the one it presented: a
 * later refresh can ask for the whole grant again, and a narrowed request without offline_access
 * still gets a refresh token (the presented one is rotated away either way).
 */

let as: AuthServerUnderTest;
let flow: ReturnType<typeof oauthFlow>;

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
  flow = oauthFlow(as);
}, 120_000);

afterAll(async () => {
  await as?.stop();
});

const FULL = "worlds:read worlds:write offline_access";

async function firstTokens(): Promise<{ clientId: string; refreshToken: string }> {
  const grant = await flow.grantCode({ scope: FULL });
  const tokens = await flow.exchange(grant);
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return { clientId: grant.clientId, refreshToken: tokens.body.refresh_token as string };
}

const scopesOf = (token: unknown) => String(decodeJwt(String(token)).scope ?? "").split(" ").filter(Boolean).sort();

describe("a narrowed refresh narrows the access token only", () => {
  it("the next refresh may ask for the whole grant again", async () => {
    const { clientId, refreshToken } = await firstTokens();
    const narrowed = await flow.refresh(clientId, refreshToken, { scope: "worlds:read offline_access" });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(scopesOf(narrowed.body.access_token)).not.toContain("worlds:write");
    expect(narrowed.body.refresh_token).toEqual(expect.any(String));
    const whole = await flow.refresh(clientId, narrowed.body.refresh_token as string, { scope: FULL });
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(scopesOf(whole.body.access_token)).toEqual(expect.arrayContaining(["worlds:read", "worlds:write"]));
    // And with no scope at all: the refresh token's own, the whole grant.
    const plain = await flow.refresh(clientId, whole.body.refresh_token as string);
    expect(plain.status).toBe(200);
    expect(scopesOf(plain.body.access_token)).toEqual(expect.arrayContaining(["worlds:read", "worlds:write"]));
  });

  it("a narrowed scope without offline_access still gets a refresh token of the whole grant", async () => {
    const { clientId, refreshToken } = await firstTokens();
    const narrowed = await flow.refresh(clientId, refreshToken, { scope: "worlds:read" });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(scopesOf(narrowed.body.access_token)).not.toContain("worlds:write");
    expect(narrowed.body.refresh_token).toEqual(expect.any(String));
    const whole = await flow.refresh(clientId, narrowed.body.refresh_token as string, { scope: FULL });
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(scopesOf(whole.body.access_token)).toContain("worlds:write");
  });

  it("a refresh still cannot widen the scope beyond the grant", async () => {
    const grant = await flow.grantCode({ scope: "worlds:read" });
    const tokens = await flow.exchange(grant);
    const wider = await flow.refresh(grant.clientId, tokens.body.refresh_token as string, { scope: FULL });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
  });
});
