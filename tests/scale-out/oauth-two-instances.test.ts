import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeInBrowser, launchChromium, MemoryOAuthProvider } from "../support/oauth-client";
import { ACCESS_TOKEN_TTL_SECONDS, AUTH_TEST_SECRET } from "../support/oauth-server";
import { sleep } from "../support/sdk-client";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";

/**
 * What this file proves: the built-in authorization server keeps all of a linking flow's state
 * where every instance finds it. Behind the round-robin proxy each request — discovery,
 * registration, authorize, the sign-up and consent pages and their forms, the code exchange, the
 * tool calls, the refresh — lands on the other instance than the one before, and the flow
 * completes as on one.
 */

let pair: TwoInstances;
let browser: Browser;
const REDIRECT = "http://127.0.0.1:1/oauth/callback";

beforeAll(async () => {
  [pair, browser] = await Promise.all([
    startTwoInstances({
      prefix: "wc_oauth_pair",
      env: {
        // Keys in the database (as in production), not the keys folder the helper sets up.
        MCP_AUTH_KEYS_DIR: "",
        BETTER_AUTH_SECRET: AUTH_TEST_SECRET,
        MCP_AUTH_MODE: "required",
        MCP_AUTH_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS),
        MCP_AUTH_CLOCK_TOLERANCE_SECONDS: "0",
      },
    }),
    launchChromium(),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await pair?.stop();
});

describe("account linking across two instances", () => {
  it("registers, signs up, consents, exchanges, calls and refreshes with every request on the other instance", async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, "Two-instance client");
    const connect = async () => {
      const client = new Client({ name: "oauth-pair-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(pair.resourceUrl), { authProvider: provider }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    const person = { email: `pair-${randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery" };
    const landed = await authorizeInBrowser(browser, provider.authorizationUrl!, REDIRECT, person, { signUp: true });
    const code = landed.searchParams.get("code");
    expect(code, landed.toString()).toBeTruthy();
    await new StreamableHTTPClientTransport(new URL(pair.resourceUrl), { authProvider: provider }).finishAuth(code!);

    const client = await connect();
    const made = await client.callTool({ name: "create_world", arguments: { name: "Pair World", theme: "fantasy" } });
    expect(made.isError).toBeFalsy();
    await client.close();

    const before = provider.tokens()!;
    await sleep((ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
    const again = await connect();
    const listed = await again.callTool({ name: "list_worlds", arguments: {} });
    expect(JSON.stringify(listed)).toContain("Pair World");
    expect(provider.tokens()!.refresh_token).not.toBe(before.refresh_token);
    await again.close();
    // Both instances took part: the proxy alternates, and the flow made dozens of requests.
    expect(Math.min(...pair.proxy.served)).toBeGreaterThan(10);
  }, 150_000);
});
