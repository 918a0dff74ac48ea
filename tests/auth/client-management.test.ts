import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFlow } from "../support/oauth-flow";
import { startAuthServer, type AuthServerUnderTest } from "../support/oauth-server";

/**
 * What this file proves: the provider plugin's session endpoints for managing clients
 * (/oauth2/create-client, update-client, delete-client, client/rotate-secret, get-client, get-clients), which nothing in this app uses and which skipped
 * registration's bounds and rate limit, are absent (404) even to a signed-in person; and sign-up
 * bounds its name and address as its form does (400 beyond, nothing stored).
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

async function postAsPerson(path: string, cookie: string, body: unknown): Promise<Response> {
  return fetch(flow.api(path), { method: "POST", headers: { "content-type": "application/json", origin: as.origin, cookie }, body: JSON.stringify(body) });
}

describe("client management endpoints", () => {
  it("create-client and update-client are not there, even for a signed-in person", async () => {
    const { cookie } = await flow.signedInPerson();
    const created = await postAsPerson("/oauth2/create-client", cookie, { client_name: "x".repeat(60_000), redirect_uris: ["https://client.example/cb"] });
    expect(created.status).toBe(404);
    const clientId = await flow.publicClient();
    const updated = await postAsPerson("/oauth2/update-client", cookie, { client_id: clientId, update: { client_uri: `https://client.example/${"x".repeat(50_000)}` } });
    expect(updated.status).toBe(404);
    // The rest of the set: a client's owner-side management, unused here as well.
    for (const path of ["/oauth2/delete-client", "/oauth2/client/rotate-secret"]) {
      expect((await postAsPerson(path, cookie, { client_id: clientId })).status, path).toBe(404);
    }
    for (const path of [`/oauth2/get-client?client_id=${clientId}`, "/oauth2/get-clients"]) {
      const res = await fetch(flow.api(path), { headers: { origin: as.origin, cookie } });
      expect(res.status, path).toBe(404);
    }
  });
});

describe("sign-up bounds", () => {
  async function signUp(body: Record<string, unknown>): Promise<Response> {
    return fetch(flow.api("/sign-up/email"), { method: "POST", headers: { "content-type": "application/json", origin: as.origin }, body: JSON.stringify({ password: "correct horse battery", ...body }) });
  }

  it("a name or address beyond the form's bounds is 400 and opens no account", async () => {
    const tag = randomUUID().slice(0, 8);
    const longName = await signUp({ email: `n-${tag}@example.com`, name: "x".repeat(50_000) });
    expect(longName.status).toBe(400);
    expect(((await longName.json()) as { code?: string }).code).toBe("FIELD_TOO_LONG");
    const longLocal = await signUp({ email: `${"l".repeat(300)}@example.com`, name: "x" });
    expect(longLocal.status).toBe(400);
    // Nothing was stored: the same address signs up afterwards with a name in bounds.
    const fine = await signUp({ email: `n-${tag}@example.com`, name: "x".repeat(100) });
    expect(fine.status).toBe(200);
    const local64 = await signUp({ email: `${"l".repeat(55)}-${tag}@example.com`, name: "y" });
    expect(local64.status).toBe(200);
  });
});
