import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "../../lib/config/env";
import { createMcpEndpoint, defineTool, type McpEndpoint } from "../../lib/mcp";
import type { TaskSettings } from "../../lib/mcp/tasks/runtime";
import { TASKS_EXTENSION } from "../../lib/mcp/tasks/wire";
import { taskStoreOnTestSchema } from "../support/test-database";

/**
 * Two apps built on the core in one deployment share the task table (lib/tasks over one
 * database). Each endpoint's tasks are its own: another endpoint answers a task id it did not
 * issue as unknown, to the same caller (outside probe, 2026-11-29: a token one app issued read
 * and cancelled the other's tasks, whose tools it did not know) — also when both have a tool of
 * the same name, and when the tool is not (or no longer) offered by the endpoint asked.
 */
const VERSION = "2026-07-28";
const settings: TaskSettings = { ttlMs: 60_000, pollIntervalMs: 100, leaseMs: 30_000, maxWorkingPerOwner: 10, maxStoredPerOwner: 100, maxResultBytes: 100_000, timeLimitMs: 10_000 };

const work = (secret: string) =>
  defineTool({
    name: "work",
    description: "Works, as a task when asked",
    input: z.object({}),
    execution: { taskSupport: "optional" },
    handler: () => ({ content: [{ type: "text", text: secret }] }),
  });
const other = defineTool({ name: "other", description: "Something else", input: z.object({}), handler: () => ({ content: [] }) });

function rpc(method: string, name: string, params: Record<string, unknown>): Request {
  const _meta = { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } } };
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": VERSION, "mcp-method": method, "mcp-name": name },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta } }),
  });
}

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string } };
const ask = async (endpoint: McpEndpoint, method: string, name: string, params: Record<string, unknown>): Promise<Answer> => (await (await endpoint.handle(rpc(method, name, params))).json()) as Answer;

describe("durable tasks on two endpoints over one task table", () => {
  let db: Awaited<ReturnType<typeof taskStoreOnTestSchema>>;
  let alpha: McpEndpoint;
  let beta: McpEndpoint;
  let alphaWithoutTheTool: McpEndpoint;

  beforeAll(async () => {
    db = await taskStoreOnTestSchema("wc_task_endpoints");
    const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0", MCP_RATE_LIMITS: "0" });
    const tasks = { store: db.store, settings };
    alpha = createMcpEndpoint({ info: { name: "alpha", version: "1" }, contents: { tools: [work("alpha's secret")] } }, env, { tasks });
    beta = createMcpEndpoint({ info: { name: "beta", version: "1" }, contents: { tools: [work("beta's")] } }, env, { tasks });
    // The same app after a deploy that dropped the tool (or with it switched off).
    alphaWithoutTheTool = createMcpEndpoint({ info: { name: "alpha", version: "2" }, contents: { tools: [other] } }, env, { tasks });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
  });

  it("another endpoint answers a task it did not issue as unknown, even with a tool of the same name", async () => {
    const created = await ask(alpha, "tools/call", "work", { name: "work", arguments: {} });
    const taskId = created.result?.taskId as string;
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });

    for (const method of ["tasks/get", "tasks/cancel"]) {
      const answer = await ask(beta, method, taskId, { taskId });
      expect(answer.error, `${method}: ${JSON.stringify(answer)}`).toMatchObject({ code: -32602 });
      expect(JSON.stringify(answer)).not.toContain("secret");
    }
    const update = await ask(beta, "tasks/update", taskId, { taskId, inputResponses: { confirm_1: { action: "accept" } } });
    expect(update.error).toMatchObject({ code: -32602 });

    // Its own endpoint still has it, not cancelled, with its result.
    const deadline = Date.now() + 5_000;
    let got = await ask(alpha, "tasks/get", taskId, { taskId });
    while (got.result?.status === "working" && Date.now() < deadline) got = await ask(alpha, "tasks/get", taskId, { taskId });
    expect(got.result).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "alpha's secret" }] } });
  });

  it("a task of a tool the endpoint does not offer is unknown there, to its own owner too", async () => {
    const created = await ask(alpha, "tools/call", "work", { name: "work", arguments: {} });
    const taskId = created.result?.taskId as string;
    const answer = await ask(alphaWithoutTheTool, "tasks/get", taskId, { taskId });
    expect(answer.error).toMatchObject({ code: -32602 });
    // Its run ends before the pool does.
    const deadline = Date.now() + 5_000;
    while ((await ask(alpha, "tasks/get", taskId, { taskId })).result?.status === "working" && Date.now() < deadline);
  });
});

// Outside probe (2026-11-29): a handler whose call becomes a task only when it asks
// (`taskStarts: "when_handler_asks"`) met the per-caller limit inside ctx.continueAsTask(), and the
// refusal came back folded into an isError result instead of the documented JSON-RPC error.
describe("the task limit met by a handler that starts its task itself", () => {
  let db: Awaited<ReturnType<typeof taskStoreOnTestSchema>>;
  let gamma: McpEndpoint;

  beforeAll(async () => {
    db = await taskStoreOnTestSchema("wc_task_started_late");
    const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0", MCP_RATE_LIMITS: "0" });
    const later = defineTool({
      name: "later",
      description: "Becomes a task when it asks",
      input: z.object({}),
      execution: { taskSupport: "optional", taskStarts: "when_handler_asks" },
      handler: async (_args, ctx) => {
        await ctx.continueAsTask();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    gamma = createMcpEndpoint({ info: { name: "gamma", version: "1" }, contents: { tools: [later] } }, env, { tasks: { store: db.store, settings: { ...settings, maxWorkingPerOwner: 1 } } });
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => setTimeout(resolve, 500)); // the first task's run ends before the pool
    await db?.close();
  });

  it("is the documented -32000 with data.taskLimit, not a tool error", async () => {
    const first = await ask(gamma, "tools/call", "later", { name: "later", arguments: {} });
    expect(first.result).toMatchObject({ resultType: "task" });
    const second = await ask(gamma, "tools/call", "later", { name: "later", arguments: {} });
    expect(second.error, JSON.stringify(second)).toMatchObject({ code: -32000, data: { taskLimit: "working", limit: 1 } });
  });
});

