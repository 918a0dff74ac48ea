import { describe, expect, inject, it } from "vitest";
import { LATEST, post, sseMessages } from "../support/mcp-http";
import { newSubject, tokenFor } from "../support/auth";
import { Scope } from "../../lib/worlds/scopes";

/**
 * tools/batch (seed 001 §parallel tool execution): calls run in parallel and are answered one by
 * one, in order; each is authorized as if it came alone — an open tool runs for anyone, a data
 * tool asks an anonymous caller to sign in, a token without the scope gets that call's 403
 * error — and the batch is bounded (MCP_MAX_TOOL_BATCH, 10).
 */
const url = () => `${inject("statefulUrl")}/api/mcp`;
type Json = Record<string, unknown>;

async function session(token?: string): Promise<Record<string, string>> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const init = await post(url(), { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "batch", version: "1" } } }, auth);
  return { ...auth, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": LATEST };
}

const batch = async (headers: Record<string, string>, calls: Json[]) => {
  const r = await post(url(), { jsonrpc: "2.0", id: 1, method: "tools/batch", params: { calls } }, headers);
  return r.json as { result?: { results: Json[] }; error?: { code: number } };
};

describe("tools/batch", () => {
  // Outside probe (2026-11-29): each call counted from its own start under the one token, so the
  // client read 1, 1, 2, 2…; basic/utilities/progress: progress MUST increase with each notification.
  it("reports its calls' progress under the request's token as one sum that only increases", async () => {
    const anonymous = await session();
    const r = await post(url(), { jsonrpc: "2.0", id: 1, method: "tools/batch", params: { calls: [{ name: "draft_world_outline", arguments: { name: "Q" } }, { name: "draft_world_outline", arguments: { name: "R" } }], _meta: { progressToken: "batch-1" } } }, anonymous);
    expect(r.status).toBe(200);
    const messages = sseMessages(r.text) as Json[];
    const reports = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params as { progressToken: unknown; progress: number; total?: number });
    expect(reports.length).toBeGreaterThan(1);
    for (const report of reports) expect(report.progressToken).toBe("batch-1");
    for (let i = 1; i < reports.length; i++) expect(reports[i]!.progress, JSON.stringify(reports.map((p) => p.progress))).toBeGreaterThan(reports[i - 1]!.progress);
    expect(reports.at(-1)).toMatchObject({ progress: 20, total: 20 });
    const answer = messages.find((m) => m.id === 1) as { result: { results: Json[] } };
    expect(answer.result.results).toHaveLength(2);
  });

  it("answers every call in order, each as if it came alone", async () => {
    const anonymous = await session();
    const { result } = await batch(anonymous, [
      { name: "suggest_names", arguments: { style: "elvish", count: 2 } },
      { name: "list_worlds", arguments: {} },
      { name: "no_such_tool" },
      { name: "suggest_names", arguments: { count: 999 } },
    ]);
    const [open, needsToken, unknown, invalid] = result!.results;
    expect(open).toMatchObject({ name: "suggest_names", result: { structuredContent: { names: expect.any(Array) } } });
    // Mixed mode: the data tool answers an anonymous caller with the sign-in challenge.
    expect(needsToken).toMatchObject({ name: "list_worlds", result: { isError: true, _meta: { "mcp/www_authenticate": [expect.stringContaining("Bearer ")] } } });
    expect(unknown).toMatchObject({ name: "no_such_tool", error: { code: -32602 } });
    // 2025-11-25 server/tools §error handling: invalid arguments are a tool error the model can correct.
    expect(invalid).toMatchObject({ name: "suggest_names", result: { isError: true, structuredContent: { error: { code: "invalid_argument", message: expect.stringContaining("count: ") } } } });
  });

  it("a token without a call's scope gets that call's 403 error, the others run", async () => {
    const readOnly = await tokenFor(inject("statefulUrl"), newSubject("batch"), [Scope.Read]);
    const headers = await session(readOnly);
    const { result } = await batch(headers, [
      { name: "create_world", arguments: { name: "Nope", theme: "x" } },
      { name: "list_worlds", arguments: { limit: 1 } },
    ]);
    expect(result!.results[0]).toMatchObject({ name: "create_world", error: { code: -32001, data: { requiredScopes: [Scope.Write] } } });
    expect(result!.results[1]).toMatchObject({ name: "list_worlds", result: { structuredContent: { worlds: [] } } });
  });

  it("runs the calls in parallel and refuses more than MCP_MAX_TOOL_BATCH of them", async () => {
    const headers = await session(await tokenFor(inject("statefulUrl"), newSubject("batch")));
    const ten = Array.from({ length: 10 }, (_, i) => ({ name: "create_world", arguments: { name: `Batch ${i}`, theme: "parallel" } }));
    const { result } = await batch(headers, ten);
    expect(new Set(result!.results.map((r) => ((r.result as Json).structuredContent as { world: { id: string } }).world.id)).size).toBe(10);
    expect((await batch(headers, [...ten, ten[0]!])).error?.code).toBe(-32602);
    expect((await batch(headers, [])).error?.code).toBe(-32602);
  });
});
