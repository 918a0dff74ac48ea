/**
 * The server started with MCP_SESSION_MODE=stateless: no Mcp-Session-Id, no GET stream, every
 * request stands alone — and the official client still works against it.
 */
import { describe, expect, inject, it } from "vitest";
import { connectClient } from "../support/sdk-client";
import { PRODUCT_TOOLS } from "../support/product-tools";

const statelessUrl = () => `${inject("statelessUrl")}/api/mcp`;

describe("stateless server", () => {
  it("the SDK client connects without a session id, lists and calls tools", async () => {
    const { client, transport } = await connectClient(statelessUrl());

    expect(transport.sessionId).toBeUndefined();
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(client.getServerVersion()?.name).toBe("worldcrafter");

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(PRODUCT_TOOLS);
    const result = await client.callTool({ name: "suggest_names", arguments: { style: "celestial", kind: "realm", count: 3 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ style: "celestial", kind: "realm" });
    expect((result.structuredContent as { names: string[] }).names).toHaveLength(3);

    const progress: number[] = [];
    await client.callTool({ name: "draft_world_outline", arguments: { name: "Nowhere" } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("GET (the server's stream) is 405 Method Not Allowed", async () => {
    const res = await fetch(statelessUrl(), { method: "GET", headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" } });
    await res.body?.cancel();
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("POST");
  });
});
