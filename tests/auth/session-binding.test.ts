import { describe, expect, inject, it } from "vitest";
import { LATEST, post } from "../support/mcp-http";
import { newSubject, tokenFor } from "../support/auth";

/**
 * A session belongs to the subject that made it (basic/transports §session management): its id
 * with another user's token — or with none — is answered exactly like an unknown id (404), so
 * an id seen in a log or a shared link opens nothing.
 */
describe("sessions are bound to their subject", () => {
  it("answers 404 to the session id presented with another token or anonymously", async () => {
    const url = `${inject("statefulUrl")}/api/mcp`;
    const alice = `Bearer ${await tokenFor(inject("statefulUrl"), newSubject("alice"))}`;
    const bob = `Bearer ${await tokenFor(inject("statefulUrl"), newSubject("bob"))}`;
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "binding", version: "1" } } }, { authorization: alice });
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": LATEST };
    expect(session["mcp-session-id"]).not.toBe("");

    const ping = (headers: Record<string, string>) => post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, { ...session, ...headers });
    expect((await ping({ authorization: alice })).status).toBe(200);
    expect((await ping({ authorization: bob })).status).toBe(404);
    expect((await ping({})).status).toBe(404);
    const unknown = await post(url, { jsonrpc: "2.0", id: 2, method: "ping" }, { ...session, "mcp-session-id": "00000000-0000-0000-0000-000000000000", authorization: alice });
    // Indistinguishable from a session that does not exist (the same request, so the same id).
    expect((await ping({ authorization: bob })).text).toBe(unknown.text);
  });
});
