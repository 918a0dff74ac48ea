import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "../../lib/config/env";
import { createMcpEndpoint, defineResourceTemplate, defineTool, type ToolCallObserver, type ToolCallRecord } from "../../lib/mcp";
import { Registry } from "../../lib/mcp/registry";

/** The core is plain web Request → Response: it runs here with no Next.js and no server. */
const echo = defineTool({
  name: "echo",
  description: "Echo a message",
  input: z.object({ message: z.string().max(100) }),
  handler: ({ message }) => ({ content: [{ type: "text", text: message }] }),
});

function endpoint(onToolCall?: ToolCallObserver) {
  const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
  return createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [echo] } }, env, onToolCall ? { onToolCall } : {});
}

function rpc(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

/** A tools/call of echo with `args` at `version` (headers and, for 2026-07-28, `_meta`). */
function callAt(version: string, args: unknown): Request {
  if (version !== "2026-07-28") return rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: args } }, { "mcp-protocol-version": version });
  const _meta = { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} };
  return rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: args, _meta } }, { "mcp-protocol-version": version, "mcp-method": "tools/call", "mcp-name": "echo" });
}

describe("the MCP core mounted without Next.js", () => {
  it("serves tools/call from a bare web Request", async () => {
    const res = await endpoint().handle(rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } });
  });

  // The published outputSchema is zod's output side, where an object allows no other keys: a
  // handler that spreads a row with more in it must not send them to a client that validates.
  it("sends structuredContent as the output schema reads it: extra keys dropped, defaults filled", async () => {
    const row = { n: 1, secretColumn: "internal" };
    const counted = defineTool({
      name: "counted",
      description: "A count from a row",
      input: z.object({}),
      output: z.object({ n: z.number(), unit: z.string().default("items") }),
      // A row typed wider than it is (as a query's result can be): no unit, one column more.
      handler: () => ({ content: [], structuredContent: row as unknown as { n: number; unit: string } }),
    });
    const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
    const core = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [counted] } }, env);
    const listed = (await (await core.handle(rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }))).json()) as { result: { tools: { outputSchema: unknown }[] } };
    expect(JSON.stringify(listed.result.tools[0]?.outputSchema)).toContain('"additionalProperties":false');
    const res = await core.handle(rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "counted", arguments: {} } }));
    const body = (await res.json()) as { result: { structuredContent: unknown; content: { text: string }[] } };
    expect(body.result.structuredContent).toEqual({ n: 1, unit: "items" });
    expect(JSON.parse(body.result.content[0]?.text ?? "null")).toEqual({ n: 1, unit: "items" });
  });

  // Outside probe (2026-11-29): a handler typed loosely that returned nothing answered -32603
  // "Cannot read properties of undefined".
  it("answers a handler that returns no result with -32603 naming the tool", async () => {
    const silent = defineTool({ name: "silent", description: "Returns nothing", input: z.object({}), handler: (() => undefined) as unknown as typeof echo.handler });
    const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
    const core = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [silent] } }, env);
    const res = await core.handle(rpc({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "silent", arguments: {} } }));
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error).toMatchObject({ code: -32603, message: expect.stringContaining("Tool silent returned undefined instead of a result with a content array") });
  });

  it("reports zod issue paths for bad arguments", async () => {
    const res = await endpoint().handle(rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: 5 } } }));
    const body = (await res.json()) as { error: { code: number; data: { path: unknown[] }[] } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.data[0]?.path).toEqual(["message"]);
  });

  // server/tools §error handling: "invalid arguments" is a protocol error through 2025-06-18; from
  // 2025-11-25 on (SEP-1303) an input validation error is a tool execution error.
  it.each(["2025-03-26", "2025-06-18"])("at %s, arguments the schema refuses are -32602 listing the paths", async (version) => {
    const calls: ToolCallRecord[] = [];
    const res = await endpoint((record) => calls.push(record)).handle(callAt(version, { message: 5 }));
    const body = (await res.json()) as { error: { code: number; data: { path: unknown[] }[] } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.data.map((issue) => issue.path)).toEqual([["message"]]);
    expect(calls).toEqual([]);
  });

  it.each(["2025-11-25", "2026-07-28"])("at %s, arguments the schema refuses are an invalid_argument isError result, reported as a tool error", async (version) => {
    const calls: ToolCallRecord[] = [];
    const res = await endpoint((record) => calls.push(record)).handle(callAt(version, { message: "x".repeat(101), extra: "\u0000" }));
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { isError: boolean; content: { text: string }[]; structuredContent: { error: { code: string; id: string; message: string } } } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: "invalid_argument", id: expect.stringMatching(/^[0-9a-f]{8}$/) });
    // The control character is found first: it is refused whatever the schema says of its field.
    expect(result.structuredContent.error.message).toBe("Invalid arguments for tool echo: extra: Control characters are not allowed");
    expect(result.content).toEqual([{ type: "text", text: result.structuredContent.error.message }]);
    expect(calls).toMatchObject([{ tool: "echo", outcome: "tool_error", arguments: { extra: "\u0000" } }]);

    const tooLong = (await (await endpoint().handle(callAt(version, { message: "x".repeat(101) }))).json()) as { result: { content: { text: string }[] } };
    expect(tooLong.result.content[0]!.text).toMatch(/^Invalid arguments for tool echo: message: Too big/);
  });

  it("a tool error spells out at most ten issues, each cut at 300 characters, and counts the rest", async () => {
    const many = defineTool({
      name: "many",
      description: "Twelve numbers",
      input: z.strictObject(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}`, z.number()]))),
      handler: () => ({ content: [] }),
    });
    const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
    const core = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [many] } }, env);
    const args = { ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}`, "x"])), ["k".repeat(5000)]: 1 };
    const res = await core.handle(rpc({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "many", arguments: args } }, { "mcp-protocol-version": "2025-11-25" }));
    const { result } = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    const text = result.content[0]!.text;
    expect(result.isError).toBe(true);
    expect(text.split("; ")).toHaveLength(11);
    expect(text).toMatch(/; and 3 more$/);
    expect(text.length).toBeLessThan(11 * 320);
  });

  it("refuses contents whose resource spends the budgets of a tool they do not register (a misspelt name)", () => {
    const spending = (tool: string) =>
      defineResourceTemplate({ uriTemplate: "echo://{id}/whole", name: "whole", spendsToolBudget: tool, read: (uri) => [{ uri, text: "…" }] });
    expect(() => new Registry({ tools: [echo], resourceTemplates: [spending("ehco")] })).toThrow('echo://{id}/whole spends the budgets of tool "ehco", which is not registered');
    expect(() => new Registry({ tools: [echo], resourceTemplates: [spending("echo")] })).not.toThrow();
  });

  // Outside probe, 2026-11-29: every one of them said "Method not found: tasks".
  it("a core without tasks answers the 2026 tasks methods -32601 naming the method that was sent", async () => {
    const core = endpoint();
    const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const params = { taskId: "t-1", ...(method === "tasks/update" ? { inputResponses: {} } : {}), _meta };
      const res = await core.handle(rpc({ jsonrpc: "2.0", id: 9, method, params }, { "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": "t-1" }));
      const body = (await res.json()) as { error: { code: number; message: string; data?: { method?: string } } };
      expect(body.error.code, method).toBe(-32601);
      expect(body.error.message, method).toBe(`Method not found: ${method}`);
      if (body.error.data?.method !== undefined) expect(body.error.data.method, method).toBe(method);
    }
  });

  it("keeps Next.js, Prisma and Redis out of lib/jsonrpc, lib/mcp and lib/http", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && /from "(next|next\/[^"]*|@prisma\/[^"]*|ioredis|redis|@upstash\/[^"]*)"/.test(readFileSync(path, "utf8"))) {
          offenders.push(path);
        }
      }
    };
    for (const dir of ["lib/jsonrpc", "lib/mcp", "lib/http"]) walk(join(__dirname, "../..", dir));
    expect(offenders).toEqual([]);
  });
});
