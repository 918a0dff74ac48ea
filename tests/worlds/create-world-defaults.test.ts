import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { callTool2026 } from "../support/oauth-server";
import { LATEST, post } from "../support/mcp-http";

/**
 * What this file proves: seed 001's own example call, `create_world` with only a name, succeeds in
 * both eras and stores the default theme; the tool's input schema says the default.
 */

describe("create_world with only a name (seed 001's example)", () => {
  it("succeeds in 2025-11-25 with the default theme", async () => {
    const url = `${inject("statefulUrl")}/api/mcp`;
    const token = await tokenFor(inject("statefulUrl"), newSubject("seed"));
    const bearer = { authorization: `Bearer ${token}` };
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "curl", version: "1" } } }, bearer);
    expect(init.status).toBe(200);
    const headers = { ...bearer, "mcp-protocol-version": LATEST, "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    const res = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_world", arguments: { name: "Test World" } } }, headers);
    expect(res.status).toBe(200);
    const result = (res.json as { result: { isError?: boolean; structuredContent: { world: { name: string; theme: string } } } }).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.world).toMatchObject({ name: "Test World", theme: "fantasy" });
  });

  it("succeeds in 2026-07-28", async () => {
    const url = `${inject("statelessUrl")}/api/mcp`;
    const token = await tokenFor(inject("statelessUrl"), newSubject("seed"));
    const made = await callTool2026(url, token, "create_world", { name: "Test World" });
    expect(made.status).toBe(200);
    expect((made.body?.result as { structuredContent: { world: { theme: string } } }).structuredContent.world.theme).toBe("fantasy");
  });
});
