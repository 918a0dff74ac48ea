import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the issuer's pages show only their own words for an error. A link to
 * /auth/sign-in?error=… or /auth/error?error_description=… cannot make them print an attacker's
 * text (content spoofing); known codes get fixed messages, anything else a generic one.
 */

let as: AuthServerUnderTest;

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
}, 120_000);

afterAll(async () => {
  await as?.stop();
});

const SPOOF = "Your account is locked call 555-0100 now";

async function alertOf(path: string): Promise<string | undefined> {
  const res = await fetch(`${as.origin}${path}`);
  expect(res.status, path).toBe(200);
  // What a person sees: the markup without its scripts (Next's flight data repeats the URL, as data).
  const html = (await res.text()).replace(/<script[\s\S]*?<\/script>/g, "");
  expect(html, path).not.toContain("555-0100");
  return /role="alert">([^<]*)</.exec(html)?.[1];
}

describe("error text on the authorization pages", () => {
  it("sign-in, sign-up and consent never echo the error parameter", async () => {
    for (const page of ["/auth/sign-in", "/auth/sign-up", "/auth/consent"]) {
      await alertOf(`${page}?error=${encodeURIComponent(SPOOF)}`);
    }
    expect(await alertOf(`/auth/sign-in?error=INVALID_EMAIL_OR_PASSWORD`)).toMatch(/do not match an account/);
    expect(await alertOf(`/auth/sign-in?error=${encodeURIComponent(SPOOF)}`)).toMatch(/That did not work/);
  });

  it("the error page words the code itself and ignores error_description", async () => {
    expect(await alertOf(`/auth/error?error=invalid_client&error_description=${encodeURIComponent(SPOOF)}`)).toMatch(/not registered/);
    expect(await alertOf(`/auth/error?error=${encodeURIComponent(SPOOF)}`)).toBe("The sign-in could not continue.");
  });

  it("a failed sign-in form comes back with a code, shown as our message", async () => {
    const res = await fetch(`${as.origin}/auth/submit/sign-in`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: as.origin }, body: new URLSearchParams({ email: "nobody@example.com", password: "wrong password!" }), redirect: "manual" });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await alertOf(`${back.pathname}${back.search}`)).toMatch(/do not match an account/);
  });
});
