import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the built-in authorization server's routes (/api/auth/*, /auth/submit/*)
 * read a request body as /api/mcp does (docs/edge.md): a Content-Encoding other than identity is
 * 415 with `Accept-Encoding: identity` before the body is read (better-auth and the forms read the
 * coded bytes as plain, and a registration sent as `br` was stored); bytes that are not UTF-8, or a
 * form's percent-escapes that spell such bytes, are 400 instead of U+FFFD stand-ins that were
 * stored; and a parameter nested past 16 levels is refused for its depth, not as a control
 * character. Each answer in the OAuth shape the routes give their other body refusals (413, 408).
 * Bodies are sent as exact bytes.
 */

let as: AuthServerUnderTest;

beforeAll(async () => {
  as = await startAuthServer({ MCP_AUTH_RATE_LIMITS: "0" });
}, 120_000);

afterAll(async () => {
  await as?.stop();
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function send(path: string, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Answer> {
  const bytes = typeof body === "string" ? body : new Uint8Array(body);
  const res = await fetch(`${as.origin}${path}`, { method: "POST", headers: { "content-type": contentType, origin: as.origin, ...headers }, body: bytes, redirect: "manual" });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text.startsWith("{") ? JSON.parse(text) : { raw: text }) as Record<string, unknown> };
}

const JSON_TYPE = "application/json";
const FORM_TYPE = "application/x-www-form-urlencoded";
const REGISTRATION = { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "none" };

/** `text` as UTF-8 with the raw bytes FF FE where it says `\u0000` (never valid UTF-8). */
function withBadBytes(text: string): Buffer {
  const [before, after] = text.split("\u0000") as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);
}

function expect415(answer: Answer, encoding: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(415);
  expect(answer.headers.get("accept-encoding")).toBe("identity");
  expect(answer.body.error).toBe("invalid_request");
  expect(answer.body.error_description).toContain(`Content-Encoding "${encoding}" is not accepted`);
}

describe("Content-Encoding on the authorization server's routes", () => {
  it("registration sent as br is 415, and nothing is registered", async () => {
    expect415(await send("/api/auth/oauth2/register", JSON_TYPE, JSON.stringify(REGISTRATION), { "content-encoding": "br" }), "br");
  });

  it("a gzip body to the token endpoint, the sign-in endpoint and a form is 415", async () => {
    const form = gzipSync(new URLSearchParams({ grant_type: "client_credentials", client_id: "x", client_secret: "y" }).toString());
    expect415(await send("/api/auth/oauth2/token", FORM_TYPE, form, { "content-encoding": "gzip" }), "gzip");
    const signIn = gzipSync(JSON.stringify({ email: "a@b.example", password: "abcdefghij12" }));
    expect415(await send("/api/auth/sign-in/email", JSON_TYPE, signIn, { "content-encoding": "gzip" }), "gzip");
    expect415(await send("/auth/submit/sign-in", FORM_TYPE, gzipSync("email=a%40b.example&password=abcdefghij12"), { "content-encoding": "gzip" }), "gzip");
    // A list naming a coding beside identity is a coded body too.
    expect415(await send("/auth/submit/sign-up", FORM_TYPE, "email=a%40b.example", { "content-encoding": "identity, deflate" }), "identity, deflate");
  });

  it("Content-Encoding: identity is accepted (the body read as sent)", async () => {
    const answer = await send("/api/auth/oauth2/register", JSON_TYPE, JSON.stringify({ ...REGISTRATION, client_name: "identity" }), { "content-encoding": "identity" });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.client_name).toBe("identity");
  });
});

describe("bodies that are not UTF-8", () => {
  it("sign-up with FF FE in the name is 400 naming UTF-8, and no account is made", async () => {
    const email = `utf8-${randomUUID().slice(0, 8)}@b.example`;
    const bad = await send("/api/auth/sign-up/email", JSON_TYPE, withBadBytes(`{"name":"Bad\u0000Name","email":"${email}","password":"abcdefghij12"}`));
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_request", error_description: "Parse error: the body is not valid UTF-8" });
    // The address is still free: the same sign-up in UTF-8 makes the account, its name as sent.
    const good = await send("/api/auth/sign-up/email", JSON_TYPE, Buffer.from(`{"name":"Zoë Name","email":"${email}","password":"abcdefghij12"}`));
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect((good.body.user as { name?: string }).name).toBe("Zoë Name");
  });

  it("registration with FF FE in client_name is 400 naming UTF-8", async () => {
    const answer = await send("/api/auth/oauth2/register", JSON_TYPE, withBadBytes(`{"client_name":"Bad\u0000Name","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none"}`));
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
    expect(answer.body.error_description).toMatch(/not valid UTF-8/);
  });

  it("a form with raw FF FE bytes is 400 naming UTF-8", async () => {
    const raw = await send("/auth/submit/sign-up", FORM_TYPE, withBadBytes("name=Bad\u0000Name&email=x%40b.example&password=abcdefghij12"));
    expect(raw.status, JSON.stringify(raw.body)).toBe(400);
    expect(raw.body).toEqual({ error: "invalid_request", error_description: "Parse error: the body is not valid UTF-8" });
  });

  it("a form body whose percent-escapes spell FF FE is 400 naming UTF-8, on the forms and better-auth's endpoints", async () => {
    for (const path of ["/auth/submit/sign-up", "/api/auth/sign-up/email", "/api/auth/oauth2/token"]) {
      const escaped = await send(path, FORM_TYPE, "name=Bad%FF%FEName&email=x%40b.example&password=abcdefghij12&grant_type=client_credentials");
      expect(escaped.status, `${path} ${JSON.stringify(escaped.body)}`).toBe(400);
      expect(escaped.body).toEqual({ error: "invalid_request", error_description: "Parse error: the percent-escapes of the form body are not valid UTF-8" });
    }
  });

  it("a form's valid percent-escapes, and a % that escapes nothing, are read as before", async () => {
    const email = `pct-${randomUUID().slice(0, 8)}@b.example`;
    const answer = await send("/api/auth/sign-up/email", FORM_TYPE, `name=Zo%C3%AB+100%&email=${encodeURIComponent(email)}&password=abcdefghij12`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((answer.body.user as { name?: string }).name).toBe("Zoë 100%");
  });
});

describe("parameters nested too deep", () => {
  it("registration with a field nested 30000 levels is refused for its depth", async () => {
    const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
    const answer = await send("/api/auth/oauth2/register", JSON_TYPE, `{"redirect_uris":["https://a.example/cb"],"x":${deep}}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: "x is nested deeper than 16 levels" });
  });

  it("16 levels are walked (a control character there is named as one); 17 are refused for their depth", async () => {
    const nestedIn = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : [nestedIn(levels - 1, inner)]);
    const control = await send("/api/auth/oauth2/register", JSON_TYPE, JSON.stringify({ ...REGISTRATION, x: nestedIn(16, "a\u0001b") }));
    expect(control.status, JSON.stringify(control.body)).toBe(400);
    expect(control.body).toEqual({ error: "invalid_client_metadata", error_description: "x contains a control character or an unpaired surrogate" });
    const deep = await send("/api/auth/oauth2/register", JSON_TYPE, JSON.stringify({ ...REGISTRATION, x: nestedIn(17, "ok") }));
    expect(deep.body).toEqual({ error: "invalid_client_metadata", error_description: "x is nested deeper than 16 levels" });
  });
});
