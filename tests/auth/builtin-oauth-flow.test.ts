import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, UnauthorizedError as ModernUnauthorized } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeInBrowser, launchChromium, MemoryOAuthProvider } from "../support/oauth-client";
import { ACCESS_TOKEN_TTL_SECONDS, callTool2026, postForm, startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";
import { sleep } from "../support/sdk-client";

/**
 * What this file proves: with nothing but the deployment's own secret and database, an MCP client
 * links an account end to end — the official SDK 1.x client's OAuth support (`auth()` through
 * StreamableHTTPClientTransport's authProvider) starting with no token: 401 → protected resource
 * metadata → authorization server metadata → dynamic registration → authorize, where a real
 * Chromium creates the account, signs in and consents → code exchange with PKCE and `resource` →
 * create_world in both protocol eras → refresh after the access token expired → revocation →
 * the refresh token is dead and the expired access token gets 401. Then the same with the v2
 * client (@modelcontextprotocol/client) in the 2026-07-28 era, which also checks the `iss` of the
 * authorization response (RFC 9207).
 */

let auth: AuthServerUnderTest;
let browser: Browser;
const REDIRECT = "http://127.0.0.1:1/oauth/callback";

beforeAll(async () => {
  [auth, browser] = await Promise.all([startAuthServer(), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await auth?.stop();
});

async function connect(provider: MemoryOAuthProvider): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(auth.mcpUrl), { authProvider: provider });
  const client = new Client({ name: "oauth-flow-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

describe("account linking with the built-in authorization server (SDK 1.x client)", () => {
  it("signs up, consents, calls a data tool in both eras, refreshes, and is cut off after revocation", async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, "Flow test client");
    const person = { email: `flow-${randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery", name: "Flow Tester" };

    // 1. No token: the SDK meets the 401, discovers, registers and asks us to send the person to authorize.
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(auth.origin);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(auth.mcpUrl);

    // 2. The person: sign up, consent; the browser lands on the redirect URI with a code.
    const landed = await authorizeInBrowser(browser, authorizationUrl, REDIRECT, person, { signUp: true });
    const code = landed.searchParams.get("code");
    expect(landed.searchParams.get("error")).toBeNull();
    expect(code).toBeTruthy();
    expect(landed.searchParams.get("iss")).toBe(auth.origin);

    // 3. The code for tokens (PKCE verifier, resource): a JWT for this resource and a refresh token.
    const first = new StreamableHTTPClientTransport(new URL(auth.mcpUrl), { authProvider: provider });
    await first.finishAuth(code!);
    const tokens = provider.tokens()!;
    expect(tokens.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    expect(claims.aud).toBe(auth.mcpUrl);
    expect(claims.iss).toBe(auth.origin);
    expect(String(claims.scope)).toContain("worlds:write");

    // 4. create_world in the 2025-11-25 era (the SDK's session) and in 2026-07-28 (stateless).
    const { client } = await connect(provider);
    const made = await client.callTool({ name: "create_world", arguments: { name: "Linked World", theme: "fantasy" } });
    expect(made.isError).toBeFalsy();
    const modern = await callTool2026(auth.mcpUrl, tokens.access_token, "create_world", { name: "Stateless World", theme: "sci-fi" });
    expect(modern.status).toBe(200);
    expect((modern.body?.result as { isError?: boolean } | undefined)?.isError).toBeFalsy();
    const listed = await callTool2026(auth.mcpUrl, tokens.access_token, "list_worlds", {});
    expect(JSON.stringify(listed.body)).toContain("Linked World");
    expect(JSON.stringify(listed.body)).toContain("Stateless World");
    await client.close();

    // 5. The access token expires; the SDK refreshes with the rotating refresh token on the 401.
    await sleep((ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
    expect((await callTool2026(auth.mcpUrl, tokens.access_token, "list_worlds", {})).status).toBe(401);
    const again = await connect(provider);
    const after = await again.client.callTool({ name: "list_worlds", arguments: {} });
    expect(after.isError).toBeFalsy();
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await again.client.close();

    // 6. Revocation (RFC 7009): the refresh token stops working at once; the access token is a
    // self-contained JWT that lives until its short expiry, then the client is asked to sign in again.
    const revoke = await postForm(`${auth.origin}/api/auth/oauth2/revoke`, { token: refreshed.refresh_token!, token_type_hint: "refresh_token", client_id: provider.client!.client_id });
    expect(revoke.status).toBe(200);
    const refreshAfterRevoke = await postForm(`${auth.origin}/api/auth/oauth2/token`, { grant_type: "refresh_token", refresh_token: refreshed.refresh_token!, client_id: provider.client!.client_id, resource: auth.mcpUrl });
    expect(refreshAfterRevoke.status).toBe(400);
    expect(refreshAfterRevoke.body.error).toBe("invalid_grant");
    await sleep((ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
    const cutOff = await callTool2026(auth.mcpUrl, refreshed.access_token, "list_worlds", {});
    expect(cutOff.status).toBe(401);
    expect(cutOff.headers.get("www-authenticate")).toContain("resource_metadata=");
  }, 120_000);
});

describe("account linking with the built-in authorization server (SDK v2 client, 2026-07-28)", () => {
  it("registers, signs in with an existing account, consents, and calls data tools statelessly", async () => {
    // The account exists already (made by the page's sign-up form in an earlier flow of this person).
    const person = { email: `v2-${randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery" };
    const setup = new MemoryOAuthProvider(REDIRECT, "v2 setup client");
    await expect(connect(setup)).rejects.toBeInstanceOf(UnauthorizedError);
    await authorizeInBrowser(browser, setup.authorizationUrl!, REDIRECT, person, { signUp: true });

    const provider = new MemoryOAuthProvider(REDIRECT, "v2 test client");
    const modern = () => {
      const client = new ModernClient({ name: "oauth-v2-test", version: "2.0.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" }, probe: { timeoutMs: 10_000 } } });
      return { client, transport: new ModernTransport(new URL(auth.mcpUrl), { authProvider: provider }) };
    };
    const first = modern();
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(ModernUnauthorized);
    const landed = await authorizeInBrowser(browser, provider.authorizationUrl!, REDIRECT, person, { signUp: false });
    expect(landed.searchParams.get("code")).toBeTruthy();
    await first.transport.finishAuth(landed.searchParams);

    const second = modern();
    await second.client.connect(second.transport);
    const made = await second.client.callTool({ name: "create_world", arguments: { name: "Modern World", theme: "steampunk" } });
    expect(made.isError).toBeFalsy();
    const listed = await second.client.callTool({ name: "list_worlds", arguments: {} });
    expect(JSON.stringify(listed)).toContain("Modern World");
    await second.client.close();
  }, 120_000);
});

describe("the authorization server's per-address limits", () => {
  // Last in this file: it spends the address's sign-in budget.
  it("count the socket's address, not an X-Forwarded-For the client makes up", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 55; i++) {
      const res = await fetch(`${auth.origin}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: auth.origin, "x-forwarded-for": `198.51.100.${i}`, "x-real-ip": `203.0.113.${i}` },
        body: JSON.stringify({ email: `nobody-${i}-${randomUUID().slice(0, 6)}@example.com`, password: "wrong password here" }),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    // Ten attempts per account by default, five accounts' worth per address: 50 in the window
    // (the flows above signed in from this address too), then 429 whatever the headers say.
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(45);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(50);
    expect(statuses.slice(-5).every((s) => s === 429)).toBe(true);
  }, 60_000);
});
