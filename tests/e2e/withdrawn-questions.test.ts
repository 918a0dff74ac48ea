/**
 * A question the server asked during a call (elicitation/create, sampling/createMessage,
 * roots/list) is withdrawn when that call ends, however it ends: the client hears
 * notifications/cancelled naming the question (basic/utilities/cancellation: either side may
 * cancel a request it sent), so it stops showing e.g. a confirmation form for a call that is over.
 * On the call's stream while the client reads it there; once the client gave that stream up
 * (no resume within MCP_RESUME_GRACE_MS, 1 s in tests), on the session's GET stream.
 */
import { describe, expect, inject, it } from "vitest";
import { post } from "../support/mcp-http";
import { initialize, isRecord, methodOf, openStream, postMessage, uniqueId, type Json } from "../support/raw-sessions";
import { messageOf, type SseEvent } from "../support/sdk-client";

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;

/** A 2025-11-25 session past notifications/initialized. */
async function readySession(capabilities: Json): Promise<Record<string, string>> {
  const { headers } = await initialize(fixtureUrl(), { capabilities });
  await post(fixtureUrl(), { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

function callTool(id: string, name: string, args: Json = {}): Json {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

const message = (event: SseEvent): Json => messageOf(event) ?? {};

describe("questions of a call that is over are withdrawn", () => {
  it("the client cancels the call: notifications/cancelled names the open elicitation on the call's stream", async () => {
    const headers = await readySession({ elicitation: {} });
    const callId = uniqueId("cancelled-call");
    const call = await openStream(fixtureUrl(), { method: "POST", headers, body: callTool(callId, "test_elicitation", { message: "Delete it?" }) });
    const question = message(await call.reader.until((e) => methodOf(e) === "elicitation/create"));

    const cancel = await postMessage(fixtureUrl(), headers, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "changed my mind" } });
    expect(cancel.status).toBe(202);

    const withdrawn = message(await call.reader.until((e) => methodOf(e) === "notifications/cancelled"));
    expect(withdrawn.params).toEqual({ requestId: question.id, reason: "The request that asked this was cancelled" });
    // The cancelled call itself is not answered (cancellation §behavior): its stream just ends.
    const rest = (await call.reader.rest()).map(message);
    expect(rest.filter((m) => m.id === callId)).toEqual([]);
  });

  it("the call fails while a question is open: notifications/cancelled names it before the isError result (2025-03-26)", async () => {
    // 2025-03-26 has no elicitation and this client declares no roots: the tool's other two
    // questions fail at once, its Promise.all rejects, and the call ends with sampling still open.
    const version = "2025-03-26";
    const init = await post(fixtureUrl(), {
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: version, capabilities: { sampling: {} }, clientInfo: { name: "withdrawn", version: "1" } },
    });
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": version };
    await post(fixtureUrl(), { jsonrpc: "2.0", method: "notifications/initialized" }, headers);

    const callId = uniqueId("failing-call");
    const reply = await postMessage(fixtureUrl(), headers, callTool(callId, "test_input_required_result_multiple_inputs"));
    const asked = reply.messages.findIndex((m) => m.method === "sampling/createMessage");
    const withdrawn = reply.messages.findIndex((m) => m.method === "notifications/cancelled");
    const answer = reply.messages.findIndex((m) => m.id === callId);
    expect(asked, reply.text).toBeGreaterThanOrEqual(0);
    expect(withdrawn, reply.text).toBeGreaterThan(asked);
    expect(answer).toBeGreaterThan(withdrawn);
    expect(reply.messages[withdrawn]?.params).toEqual({ requestId: reply.messages[asked]?.id, reason: "The request that asked this has ended" });
    const result = reply.messages[answer]?.result;
    expect(isRecord(result) && result.isError).toBe(true);
  });

  it("the client gave up the call's stream: the withdrawal reaches the session's GET stream", async () => {
    const headers = await readySession({ elicitation: {} });
    const listening = await openStream(fixtureUrl(), { method: "GET", headers });
    const call = await openStream(fixtureUrl(), { method: "POST", headers, body: callTool(uniqueId("abandoned-call"), "test_elicitation", { message: "Still there?" }) });
    const question = message(await call.reader.until((e) => methodOf(e) === "elicitation/create"));
    await call.close();

    // Given up after the 1 s grace period.
    const withdrawn = message(await listening.reader.until((e) => methodOf(e) === "notifications/cancelled", 8_000));
    expect(withdrawn.params).toEqual({ requestId: question.id, reason: "The request that asked this was cancelled" });
  });
});
