/**
 * search and fetch cite a url a person can open (issue 24, item 7): the record's page on the
 * deployment's origin, shown to its owner — the signed-in better-auth user whose id is the
 * subject of their tokens. Proven with real sign-ups and sign-ins (cookies) on the real server:
 * signed out, the page sends you to sign in and back; another user's record is the same 404 as
 * a missing one; bad segments are a 404, never a 500.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { tokenFor } from "../support/auth";
import { connectClient } from "../support/sdk-client";

type Json = Record<string, unknown>;

interface Person {
  id: string;
  email: string;
  password: string;
  cookie: string;
}

const base = () => inject("statefulUrl");

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

/** An account made through better-auth's sign-up endpoint, signed in (autoSignIn). */
async function signUp(): Promise<Person> {
  const email = `reader-${randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const res = await fetch(`${base()}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base() },
    body: JSON.stringify({ email, password, name: "Reader" }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { user: { id: string } };
  return { id: body.user.id, email, password, cookie: cookieOf(res) };
}

const page = (path: string, cookie?: string) => fetch(`${base()}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });

describe("record pages: the url search and fetch cite", () => {
  let owner: Person;
  let worldId = "";
  let url = "";

  /** The owner's world, made (once, inside the first test that needs it: the client closes with it) with a token whose subject is their user id. */
  let made: Promise<void> | undefined;
  const ready = () => (made ??= (async () => {
    owner = await signUp();
    const { client } = await connectClient(`${base()}/api/mcp`, { token: await tokenFor(base(), owner.id) });
    const created = (await client.callTool({ name: "create_world", arguments: { name: "Readable World", description: "Lanterns over water" } })) as CallToolResult;
    worldId = ((created.structuredContent as Json).world as Json).id as string;
    const found = (await client.callTool({ name: "search", arguments: { query: "Readable" } })) as CallToolResult;
    const hit = ((found.structuredContent as Json).results as Json[]).find((r) => r.id === `world:${worldId}`);
    url = String(hit?.url);
    const fetched = (await client.callTool({ name: "fetch", arguments: { id: `world:${worldId}` } })) as CallToolResult;
    expect((fetched.structuredContent as Json).url).toBe(url);
  })());

  it("the url is the record's page on the deployment's origin, and its owner can open it", async () => {
    await ready();
    expect(url).toBe(`${base()}/records/world/${worldId}`);
    const res = await page(new URL(url).pathname, owner.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Readable World");
    expect(html).toContain("Lanterns over water");
  });

  it("fetch's text and the page show the record as typed: plain text, escaped once as HTML (outside review)", async () => {
    await ready();
    const name = "Mont-St. Michel (old) & co!";
    // A safe link stays as typed; an unsafe one is defused in fetch's text too (markdown-links.test.ts).
    const description = "Tides <b>high</b> & [low](https://example.org/low) *twice*";
    const { client } = await connectClient(`${base()}/api/mcp`, { token: await tokenFor(base(), owner.id) });
    try {
      const created = (await client.callTool({ name: "create_world", arguments: { name, theme: "sea", description } })) as CallToolResult;
      const id = ((created.structuredContent as Json).world as Json).id as string;
      const character = (await client.callTool({ name: "create_character", arguments: { worldId: id, name: "Ana —", role: "hero_1", backstory: description } })) as CallToolResult;
      const characterId = ((character.structuredContent as Json).character as Json).id as string;
      const textOf = async (docId: string) => String(((await client.callTool({ name: "fetch", arguments: { id: docId } })) as CallToolResult).structuredContent?.text);

      const text = await textOf(`world:${id}`);
      // It was `# Mont\-St\. Michel \(old\) &amp; co\!` beside a raw "Theme:" line and description.
      // A `<` that opens a tag is defused for hosts that render Markdown (markdown-links.test.ts);
      // the page below shows the field as typed.
      const forMarkdown = description.replaceAll("<", "&lt;");
      expect(text.split("\n").slice(0, 5)).toEqual([name, "", "Theme: sea", "", forMarkdown]);
      expect((await textOf(`character:${characterId}`)).split("\n")).toEqual(["Ana — — hero_1", "", `World: ${name}`, "", forMarkdown]);

      const html = await (await page(`/records/world/${id}`, owner.cookie)).text();
      const pre = /<pre[^>]*>([^<]*(?:<(?!\/pre>)[^<]*)*)<\/pre>/.exec(html)?.[1] ?? "";
      // React escapes the text once: `&` is `&amp;` (never `&amp;amp;`), `<b>` is text, the link no anchor.
      expect(pre.split("\n").slice(0, 5)).toEqual(["Mont-St. Michel (old) &amp; co!", "", "Theme: sea", "", "Tides &lt;b&gt;high&lt;/b&gt; &amp; [low](https://example.org/low) *twice*"]);
      expect(html).not.toContain("&amp;amp;");
      expect(html).not.toContain("Mont\\-St");
      expect(html).not.toMatch(/<a[^>]*example\.org/i);
      expect(html).not.toContain("<b>high");
    } finally {
      await client.close();
    }
  });

  it("signed out, the page sends you to sign in, and signing in brings you back", async () => {
    await ready();
    const path = new URL(url).pathname;
    const res = await page(path);
    expect([303, 307]).toContain(res.status);
    const location = new URL(res.headers.get("location")!, base());
    expect(location.pathname).toBe("/auth/sign-in");
    expect(location.searchParams.get("returnTo")).toBe(path);

    // The sign-in page carries the way back in its form; the form returns there.
    const signInPage = await (await fetch(location)).text();
    expect(signInPage).toContain(`name="returnTo" value="${path}"`);
    const form = await fetch(`${base()}/auth/submit/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: base(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: owner.email, password: owner.password, oauth_query: "", returnTo: path }),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe(`${base()}${path}`);
    expect((await page(path, cookieOf(form))).status).toBe(200);
  });

  it("the way back is only ever a path of this site", async () => {
    await ready();
    for (const returnTo of ["https://evil.example/x", "//evil.example/x", "/\\evil.example"]) {
      const form = await fetch(`${base()}/auth/submit/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: base(), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: owner.email, password: owner.password, returnTo }),
      });
      expect(form.headers.get("location")).toBe(`${base()}/`);
    }
  });

  it("another user's record is the same not-found page as a missing one", async () => {
    await ready();
    const stranger = await signUp();
    const theirs = await page(`/records/world/${worldId}`, stranger.cookie);
    const missing = await page(`/records/world/no-such-world`, stranger.cookie);
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    const [a, b] = [await theirs.text(), await missing.text()];
    expect(a).not.toContain("Readable World");
    // The same page, but for the request-specific parts Next.js writes into it.
    const strip = (html: string) => html.replace(/no-such-world|[A-Za-z0-9_-]{20,}/g, "");
    expect(strip(a)).toBe(strip(b));
  });

  it("unknown kinds and malformed ids are a 404, never a 500", async () => {
    await ready();
    // (A segment that is not valid percent-encoding, /records/world/%E0%A4%A, is a 400 from proxy.ts:
    // tests/http/malformed-paths.test.ts.)
    // A control character decoded from the segment never reaches the database (a NUL there was a
    // PostgreSQL encoding error, a 500: outside audit, 2026-11-27).
    const controls = ["/records/world/%00", "/records/character/a%00b", "/records/location/a%00b", "/records/world/a%0Ab", "/records/world/%7F"];
    for (const path of ["/records/planet/1", "/records/world/%25", `/records/world/${"x".repeat(80)}`, "/records/character/none", "/records/location/none", ...controls]) {
      const res = await page(path, owner.cookie);
      expect(res.status, path).toBe(404);
    }
  });
});
