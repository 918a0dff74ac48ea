/**
 * Clients of the older revisions the server still speaks (2025-06-18, 2025-03-26), and JSON-RPC
 * batching, which only 2025-03-26 allows (removed in 2025-06-18, changelog #416).
 */
import { describe, expect, inject, it } from "vitest";
import { LATEST, openSession, post } from "../support/mcp-http";
import { connectClient } from "../support/sdk-client";
import { PRODUCT_TOOLS } from "../support/product-tools";

const productUrl = () => `${inject("statefulUrl")}/api/mcp`;

describe("older protocol revisions", () => {
  for (const version of ["2025-06-18", "2025-03-26"] as const) {
    it(`an SDK client pinned to ${version} negotiates it and calls a tool`, async () => {
      const { client, transport } = await connectClient(productUrl(), { protocolVersion: version });

      // The server echoed the offered revision; the SDK now sends it as MCP-Protocol-Version.
      expect(transport.protocolVersion).toBe(version);
      expect(transport.sessionId).toBeDefined();
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(PRODUCT_TOOLS);
      const result = await client.callTool({ name: "suggest_names", arguments: { style: "nordic", count: 2 } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { names: string[] }).names).toHaveLength(2);
    });
  }

  it("a JSON-RPC batch at 2025-03-26 is answered with an array of both responses", async () => {
    const headers = await openSession(productUrl(), "2025-03-26");
    const res = await post(
      productUrl(),
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "suggest_names", arguments: { style: "desert", count: 1 } } },
      ],
      headers,
    );

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(Array.isArray(res.json)).toBe(true);
    const answers = res.json as { id: number; result?: Record<string, unknown> }[];
    expect(answers).toHaveLength(2);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(byId.get(2)?.result).toMatchObject({ structuredContent: { style: "desert", kind: "person" } });
  });

  it("a JSON-RPC batch at 2025-11-25 is refused: HTTP 400, -32600 and a message saying batches are not supported", async () => {
    const headers = await openSession(productUrl(), LATEST);
    const res = await post(
      productUrl(),
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ],
      headers,
    );

    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    const message = (res.json as { error: { message: string } }).error.message;
    expect(message).toMatch(/batch/i);
    expect(message).toContain("2025-11-25");
  });
});
