import { describe, expect, inject, it } from "vitest";

/**
 * 2026-07-28 multi-round-trip requests hold across instances: the requestState carries every
 * earlier answer and is signed with the deployment's shared key, so a round started on one
 * server process finishes on another. (The test setup runs two `next start` processes with the
 * same MCP_REQUEST_STATE_SECRET.)
 */
const V = "2026-07-28";
const TOOL = "test_input_required_result_multi_round";

async function round(base: string, id: number, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/api/conformance/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": TOOL,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: TOOL,
        arguments: {},
        ...params,
        _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
      },
    }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

describe("2026-07-28 request state across instances", () => {
  it("a multi-round call started on one server process completes on another", async () => {
    const a = inject("statefulUrl");
    const b = inject("statelessUrl");
    const r1 = await round(a, 1, {});
    expect(r1.resultType).toBe("input_required");
    const r2 = await round(b, 2, {
      inputResponses: { step1: { action: "accept", content: { name: "Ada" } } },
      requestState: r1.requestState,
    });
    expect(r2.resultType).toBe("input_required");
    const r3 = await round(a, 3, {
      inputResponses: { step2: { action: "accept", content: { color: "amber" } } },
      requestState: r2.requestState,
    });
    expect(r3).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Ada likes amber" }] });
  });
});
