import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, post, sseMessages } from "../support/mcp-http";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";

/**
 * basic/lifecycle §timeouts: when a request gets no answer within its timeout, "the sender SHOULD
 * issue a cancellation notification for that request and stop waiting for a response". The server
 * is the sender of its questions to the client (here elicitation/create); this server waits
 * MCP_CLIENT_REQUEST_TIMEOUT_MS (the least it takes, 1 s) for an answer nobody gives.
 */
let server: RunningNextServer;
const url = () => `${server.url}/api/conformance/mcp`;

beforeAll(async () => {
  server = await startNextServer({ env: { MCP_CONFORMANCE_FIXTURES: "1", MCP_CLIENT_REQUEST_TIMEOUT_MS: "1000", MCP_RATE_LIMITS: "0", DATABASE_URL: inject("databaseUrl") } });
});

afterAll(async () => {
  await server?.stop();
});

describe("a question the client leaves unanswered", () => {
  it.each(["2025-11-25", "2025-06-18"])("at %s: notifications/cancelled names it on the same stream, then the call ends with an isError result", async (version) => {
    const init = await post(url(), {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: "silent", version: "1" } },
    });
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": version };
    await post(url(), { jsonrpc: "2.0", method: "notifications/initialized" }, headers);

    const res = await fetch(url(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: "asks", method: "tools/call", params: { name: "test_elicitation", arguments: { message: "Who are you?" } } }),
      signal: AbortSignal.timeout(10_000),
    });
    const messages = sseMessages(await res.text()) as { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> }[];

    const question = messages.findIndex((m) => m.method === "elicitation/create");
    const cancelled = messages.findIndex((m) => m.method === "notifications/cancelled");
    const answer = messages.findIndex((m) => m.id === "asks");
    expect(question).toBeGreaterThanOrEqual(0);
    expect(cancelled).toBeGreaterThan(question);
    expect(answer).toBeGreaterThan(cancelled);
    expect(messages[cancelled]!.params).toEqual({ requestId: messages[question]!.id, reason: "The client did not answer in time" });
    expect(messages[answer]!.result).toMatchObject({ isError: true, structuredContent: { error: { code: "client_request_failed" } } });
  });
});
