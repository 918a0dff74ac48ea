import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the built-in authorization server's routes (/api/auth/*, /auth/submit/*)
 * read a request body as /api/mcp does (docs/edge.md): a Content-Encoding other than identity is
 * 415 with `Accept-Encoding: identity` before the body is read (better-auth and the forms read the
 * coded bytes as plain, and a registration sent as `br` was stored). Each answer in the OAuth
 * shape the routes give their other body refusals (413, 408). Bodies are sent as exact bytes.
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
