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

  // basic/transports §protocol version header: required on every later request; invalid or
  // unsupported is 400. DELETE is one of them, and a refused DELETE leaves the session alive.
  it("refuses a DELETE whose MCP-Protocol-Version is invalid, unsupported or not the session's; the session lives on", async () => {
    const headers = await openSession(url(), LATEST);
    for (const version of ["1999-01-01", "banana", "", "2025-06-18"]) {
      const res = await fetch(url(), { method: "DELETE", headers: { ...headers, "mcp-protocol-version": version } });
      const body = (await res.json()) as { id: unknown; error?: { code: number; message: string } };
      expect(res.status, `DELETE with MCP-Protocol-Version "${version}"`).toBe(400);
      expect(body.error?.code).toBe(-32600);
      expect(body.id).toBeNull();
    }
    const alive = await post(url(), { jsonrpc: "2.0", id: 1, method: "ping" }, headers);
    expect(alive.status).toBe(200);
    // Without the header the session's version applies, as on GET and POST.
    const { "mcp-protocol-version": _version, ...withoutVersion } = headers;
    const ended = await fetch(url(), { method: "DELETE", headers: withoutVersion });
    expect(ended.status).toBe(200);
    expect((await post(url(), { jsonrpc: "2.0", id: 2, method: "ping" }, headers)).status).toBe(404);
  });
});
