import { describe, expect, inject, it } from "vitest";
import { LATEST, openSession, post } from "../support/mcp-http";

const url = () => `${inject("statefulUrl")}/api/mcp`;

describe("lifecycle on /api/mcp", () => {
  it("negotiates: echoes a supported version and offers the latest for an unknown one", async () => {
    for (const [asked, expected] of [
      ["2025-03-26", "2025-03-26"],
      ["2025-06-18", "2025-06-18"],
      [LATEST, LATEST],
      ["1999-01-01", LATEST],
    ] as const) {
      const res = await post(url(), {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      expect(res.status).toBe(200);
      expect((res.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe(expected);
      expect(res.headers.get("mcp-session-id")).toMatch(/^[\x21-\x7e]{16,}$/);
    }
  });

  it("answers ping with an empty result inside a session", async () => {
    const headers = await openSession(url());
    const res = await post(url(), { jsonrpc: "2.0", id: 7, method: "ping" }, headers);
    expect(res.json).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });
});
