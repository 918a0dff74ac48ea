import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow, pkce, REDIRECT } from "../support/oauth-flow";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: a consent page reached without a session (signed out in another tab,
 * the link opened in another browser) sends the person to sign in with the same signed
 * authorization request, and signing in there carries the flow on to consent. Before, the page
 * showed Allow and Deny, and Allow came back to the page with a generic "That did not work"
 * until the signed request expired.
 */

let as: AuthServerUnderTest;
let flow: ReturnType<typeof oauthFlow>;
let person: { cookie: string; email: string; password: string };
/** The consent page's URL as better-auth sent a signed-in person there. */
let consent: URL;

/** A page's query as its parameters in order (ba_param repeats), without the `error` our forms add. */
const signedQuery = (url: URL) => [...url.searchParams].filter(([name]) => name !== "error");

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
  flow = oauthFlow(as);
  const clientId = await flow.publicClient();
  person = await flow.signedInPerson();
  consent = await flow.authorize({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "worlds:read", state: "s1", code_challenge: pkce().challenge, code_challenge_method: "S256" }, person.cookie);
  expect(consent.pathname).toBe("/auth/consent");
}, 120_000);

afterAll(async () => {
  await as?.stop();
});

/** Signs `person` in through the sign-in page's form with `oauthQuery`; where the flow goes next, and the session cookie. */
async function signIn(oauthQuery: string): Promise<{ next: URL; cookie: string }> {
  const res = await fetch(`${as.origin}/auth/submit/sign-in`, { method: "POST", redirect: "manual", headers: { origin: as.origin, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: person.email, password: person.password, oauth_query: oauthQuery }) });
  expect(res.status).toBe(303);
  return { next: new URL(res.headers.get("location")!, as.origin), cookie: res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") };
}

describe("the consent page without a session", () => {
  it("sends the browser to sign in with the same signed request, and signing in leads back to consent", async () => {
    const res = await fetch(consent, { redirect: "manual" });
    expect([303, 307]).toContain(res.status);
    const signInPage = new URL(res.headers.get("location")!, as.origin);
    expect(signInPage.pathname).toBe("/auth/sign-in");
    expect(signedQuery(signInPage)).toEqual(signedQuery(consent));
    // The sign-in page carries that request in its form, as it does when authorize sends a person there.
    const html = await (await fetch(signInPage)).text();
    expect(html).toContain('name="oauth_query"');

    const { next, cookie } = await signIn(signInPage.search.slice(1));
    expect(next.pathname).toBe("/auth/consent");
    const page = await fetch(next, { redirect: "manual", headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="allow"');
  });

  it("with a session, the page asks for consent (control)", async () => {
    const page = await fetch(consent, { redirect: "manual", headers: { cookie: person.cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="allow"');
  });

  it("Allow posted without a session goes to sign in with the same request, not back to the consent page", async () => {
    const oauthQuery = consent.search.slice(1);
    const res = await fetch(`${as.origin}/auth/submit/consent`, { method: "POST", redirect: "manual", headers: { origin: as.origin, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ decision: "allow", oauth_query: oauthQuery }) });
    expect(res.status).toBe(303);
    const next = new URL(res.headers.get("location")!);
    expect(next.pathname).toBe("/auth/sign-in");
    expect(signedQuery(next)).toEqual(signedQuery(consent));
    // The sign-in page says why the person is there, in its own words.
    expect(next.searchParams.get("error")).toBe("login_required");
    const html = await (await fetch(next)).text();
    expect(/role="alert">([^<]*)</.exec(html)?.[1]).toMatch(/sign in to continue/i);

    const { next: after } = await signIn(new URLSearchParams(signedQuery(next)).toString());
    expect(after.pathname, after.toString()).toBe("/auth/consent");
  });
});

// Outside probe (2026-11-29): no page named the account signed in or offered another, so a chat
// client (which sends no prompt=login) linked whichever account the browser held; and
// prompt=select_account ended on the error page with nothing sent back to the client.
describe("choosing the account", () => {
  it("the consent page names the account, and 'Use another account' signs out into the same request", async () => {
    const page = await (await fetch(consent, { redirect: "manual", headers: { cookie: person.cookie } })).text();
    expect(/data-testid="signed-in-as">([^<]*)</.exec(page)?.[1]).toBe(person.email);
    const form = /<form[^>]*action="\/auth\/submit\/sign-out"[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
    expect(form).toContain("Use another account");
    const carried = /name="oauth_query" value="([^"]*)"/.exec(form)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(carried).not.toBe("");

    const res = await fetch(`${as.origin}/auth/submit/sign-out`, { method: "POST", redirect: "manual", headers: { origin: as.origin, cookie: person.cookie, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ oauth_query: carried }) });
    expect(res.status).toBe(303);
    const next = new URL(res.headers.get("location")!);
    expect(next.pathname).toBe("/auth/sign-in");
    expect(signedQuery(next)).toEqual(signedQuery(consent));
    // The session is gone: its cookie is cleared.
    expect(res.headers.getSetCookie().some((c) => /max-age=0|expires=thu, 01 jan 1970/i.test(c))).toBe(true);

    // Another account signs in there and is asked for consent as itself.
    const other = await flow.signedInPerson();
    const signedIn = await fetch(`${as.origin}/auth/submit/sign-in`, { method: "POST", redirect: "manual", headers: { origin: as.origin, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: other.email, password: other.password, oauth_query: next.search.slice(1) }) });
    const after = new URL(signedIn.headers.get("location")!, as.origin);
    expect(after.pathname).toBe("/auth/consent");
    const cookie = signedIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const theirs = await (await fetch(after, { headers: { cookie } })).text();
    expect(/data-testid="signed-in-as">([^<]*)</.exec(theirs)?.[1]).toBe(other.email);
  });

  it("sign-out without an authorization request still ends on the signed-out page", async () => {
    const someone = await flow.signedInPerson();
    const res = await fetch(`${as.origin}/auth/submit/sign-out`, { method: "POST", redirect: "manual", headers: { origin: as.origin, cookie: someone.cookie, "content-type": "application/x-www-form-urlencoded" }, body: "" });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).pathname).toBe("/auth/signed-out");
  });

  it("prompt=select_account shows the sign-in page, where the account is chosen, not the error page", async () => {
    const clientId = await flow.publicClient();
    const someone = await flow.signedInPerson();
    const next = await flow.authorize({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope: "worlds:read", state: "s2", code_challenge: pkce().challenge, code_challenge_method: "S256", prompt: "select_account" }, someone.cookie);
    expect(next.pathname, next.toString()).toBe("/auth/sign-in");
    expect((await fetch(next)).status).toBe(200);
  });
});
