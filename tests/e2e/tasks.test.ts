import { describe, expect, it } from "vitest";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { DATABASE_SERVERS } from "../support/servers";
import { connectClient } from "../support/sdk-client";
import { openSession, post, statelessHeaders } from "../support/mcp-http";
import { listenForTasks, methodOf, openStream, taskStatusesUntilQuiet } from "../support/raw-sessions";

/**
 * Durable tasks (io.modelcontextprotocol/tasks, docs/tasks.md) on both databases the app runs on:
 * the task store is plain SQL that must hold on PostgreSQL and on embedded PGlite alike. The
 * conformance fixtures (slow_compute, confirm_delete, multi_input, failing_job) drive it.
 */
const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const PATH = "/api/conformance/mcp";
let nextId = 1;

interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

async function call(base: string, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = { extensions: { [TASKS]: {} }, elicitation: {} }): Promise<Answer> {
  const res = await fetch(`${base}${PATH}`, {
    method: "POST",
    headers: statelessHeaders(V, method, params),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": capabilities } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as Answer;
}

async function until(base: string, taskId: string, done: (task: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { result, error } = await call(base, "tasks/get", { taskId });
    if (!result) throw new Error(`tasks/get: ${JSON.stringify(error)}`);
    if (done(result)) return result;
    if (Date.now() > deadline) throw new Error(`task still ${JSON.stringify(result)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const terminal = (t: Record<string, unknown>) => ["completed", "failed", "cancelled"].includes(t.status as string);

/** Long enough for an announcement (a store read, then the hub) to reach a listen stream. */
const QUIET_MS = 800;

describe.each(DATABASE_SERVERS)("durable tasks on $database", ({ server }) => {
  it("a task completes and tasks/get inlines its result; a tool error is completed with isError", async () => {
    const started = await call(server(), "tools/call", { name: "slow_compute", arguments: { seconds: 0.3, label: "db" } });
    expect(started.result).toMatchObject({ resultType: "task", status: "working" });
    const done = await until(server(), started.result!.taskId as string, terminal);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "Computed db after 0.3 s" }] }, progress: 1, total: 1 });

    const failing = await call(server(), "tools/call", { name: "failing_job", arguments: {} });
    const failed = await until(server(), failing.result!.taskId as string, terminal);
    expect(failed).toMatchObject({ status: "completed", result: { isError: true } });
  });

  it("answers arrive one at a time; unknown and already answered keys are ignored", async () => {
    const started = await call(server(), "tools/call", { name: "multi_input", arguments: {} });
    const taskId = started.result!.taskId as string;
    const asking = await until(server(), taskId, (t) => t.status === "input_required" && Object.keys(t.inputRequests as object).length === 2);
    expect(Object.keys(asking.inputRequests as object).sort()).toEqual(["first", "second"]);
    await call(server(), "tasks/update", { taskId, inputResponses: { first: { action: "accept", content: { name: "Ada" } }, bogus: { action: "accept" } } });
    const half = await until(server(), taskId, () => true);
    expect(half.status).toBe("input_required");
    expect(Object.keys(half.inputRequests as object)).toEqual(["second"]);
    // "first" is answered already: a second answer to it changes nothing.
    await call(server(), "tasks/update", { taskId, inputResponses: { first: { action: "accept", content: { name: "Eve" } }, second: { action: "accept", content: { name: "Bo" } } } });
    const done = await until(server(), taskId, terminal);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "Ada and Bo" }] } });
  });

  it("an answer to a key never asked, or already answered, changes nothing: lastUpdatedAt stays, no notifications/tasks", async () => {
    // Outside review (2026-07-28 tasks): an ignored answer moved lastUpdatedAt and was announced,
    // and a repeated answer after the end announced `completed` a second time.
    const started = await call(server(), "tools/call", { name: "confirm_delete", arguments: { filename: "a.txt" } });
    const taskId = started.result!.taskId as string;
    const asking = await until(server(), taskId, (t) => t.status === "input_required");
    expect(Object.keys(asking.inputRequests as object)).toEqual(["confirm"]);
    const stream = await listenForTasks(`${server()}${PATH}`, [taskId]);

    expect((await call(server(), "tasks/update", { taskId, inputResponses: { nope: { action: "accept", content: { confirm: true } } } })).result).toMatchObject({ resultType: "complete" });
    expect((await call(server(), "tasks/get", { taskId })).result).toEqual(asking);
    expect(await taskStatusesUntilQuiet(stream, QUIET_MS)).toEqual([]);

    await call(server(), "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    const done = await until(server(), taskId, terminal);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "Deleted a.txt" }] } });
    // The accepted answer (working, or completed when the run ended first) and the ending.
    const heard = await taskStatusesUntilQuiet(stream, QUIET_MS);
    expect(heard.at(-1), JSON.stringify(heard)).toBe("completed");
    expect(heard.filter((status) => status !== "working" && status !== "completed"), JSON.stringify(heard)).toEqual([]);

    expect((await call(server(), "tasks/update", { taskId, inputResponses: { confirm: { action: "decline" } } })).result).toMatchObject({ resultType: "complete" });
    expect((await call(server(), "tasks/get", { taskId })).result).toEqual(done);
    expect(await taskStatusesUntilQuiet(stream, QUIET_MS)).toEqual([]);
    await stream.close();
  });

  it("arguments the tool's schema refuses are answered at once, an invalid_argument tool error, with no task made", async () => {
    const refused = await call(server(), "tools/call", { name: "slow_compute", arguments: { seconds: "soon" } });
    expect(refused.result).toMatchObject({ resultType: "complete", isError: true, structuredContent: { error: { code: "invalid_argument" } } });
    expect((refused.result!.content as { text: string }[])[0]!.text).toMatch(/^Invalid arguments for tool slow_compute: seconds: /);
  });

  it("cancel ends a waiting task cancelled and its run stops", async () => {
    const started = await call(server(), "tools/call", { name: "confirm_delete", arguments: { filename: "keep.txt" } });
    const taskId = started.result!.taskId as string;
    await until(server(), taskId, (t) => t.status === "input_required");
    expect((await call(server(), "tasks/cancel", { taskId })).result).toMatchObject({ resultType: "complete" });
    const stopped = await until(server(), taskId, (t) => t.statusMessage === "Cancelled by the client; its run has stopped");
    expect(stopped.status).toBe("cancelled");
    expect(stopped).not.toHaveProperty("inputRequests");
  });

  it("the creation answer's createdAt and lastUpdatedAt are the stored task's, as tasks/get reads them", async () => {
    const started = await call(server(), "tools/call", { name: "slow_compute", arguments: { seconds: 30 } });
    const taskId = started.result!.taskId as string;
    const read = await call(server(), "tasks/get", { taskId });
    expect(read.result?.createdAt).toBe(started.result?.createdAt);
    expect(started.result?.lastUpdatedAt).toBe(started.result?.createdAt);
    await call(server(), "tasks/cancel", { taskId });
  });

  it("without the extension: tasks methods are -32021, task tools run synchronously, required ones refuse", async () => {
    const plain = await call(server(), "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, {});
    expect(plain.result).toMatchObject({ resultType: "complete", content: [{ type: "text" }] });
    expect((await call(server(), "tasks/get", { taskId: "x" }, {})).error?.code).toBe(-32021);
    expect((await call(server(), "tools/call", { name: "failing_job", arguments: {} }, {})).error?.code).toBe(-32021);
    expect((await call(server(), "tasks/get", { taskId: "00000000-0000-4000-8000-000000000000" })).error?.code).toBe(-32602);
  });
});

describe("2025-11-25 experimental tasks with the SDK 1.x client", () => {
  const url = () => `${DATABASE_SERVERS[0].server()}${PATH}`;

  it("the server declares tasks for tools/call; callToolStream gets a task and then the tool's result", async () => {
    const { client } = await connectClient(url());
    expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    await client.listTools();
    const kinds: string[] = [];
    let text = "";
    for await (const message of client.experimental.tasks.callToolStream({ name: "slow_compute", arguments: { seconds: 0.3, label: "v1" } })) {
      kinds.push(message.type);
      if (message.type === "result") text = (message.result.content as { text: string }[])[0]!.text;
      if (message.type === "error") throw message.error;
    }
    expect(kinds[0]).toBe("taskCreated");
    expect(kinds.at(-1)).toBe("result");
    expect(text).toBe("Computed v1 after 0.3 s");
  });

  it("tasks/cancel returns the cancelled task; cancelling it again is -32602; a plain call of a required-task tool is -32601", async () => {
    const { client } = await connectClient(url());
    const created = await client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 30 }, task: {} } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    expect(created.task).toMatchObject({ status: "working", ttl: expect.any(Number), pollInterval: expect.any(Number) });
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: "cancelled" });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(client.request({ method: "tools/call", params: { name: "failing_job", arguments: {} } }, CreateTaskResultSchema)).rejects.toMatchObject({ code: -32601 });
  });

  it("a task asked for with arguments the schema refuses is still a task, which fails with the invalid_argument tool error", async () => {
    const { client } = await connectClient(url());
    await client.listTools();
    const messages: { type: string; task?: { taskId: string } }[] = [];
    for await (const message of client.experimental.tasks.callToolStream({ name: "slow_compute", arguments: { seconds: "soon" } })) messages.push(message);
    expect(messages[0]!.type).toBe("taskCreated");
    // An isError result makes the task `failed` on this wire (basic/utilities/tasks §task status),
    // which the SDK reports as an error; tasks/result still answers what the call would have.
    expect(messages.at(-1)!.type).toBe("error");
    const result = await client.request({ method: "tasks/result", params: { taskId: messages[0]!.task!.taskId } }, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: "invalid_argument", message: expect.stringMatching(/^Invalid arguments for tool slow_compute: seconds: /) } } });
  });

  it("the created task's createdAt is tasks/get's", async () => {
    const { client } = await connectClient(url());
    const created = await client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 30 }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const read = await client.experimental.tasks.getTask(created.task.taskId);
    expect(read.createdAt).toBe(created.task.createdAt);
    expect(created.task.lastUpdatedAt).toBe(created.task.createdAt);
    await client.experimental.tasks.cancelTask(created.task.taskId);
  });

  it("a task param that is not an object, or whose ttl is not a non-negative number, is -32602; a fractional or huge ttl gets the server's", async () => {
    const { client } = await connectClient(url());
    // The schema's `ttl?: number`: a receiver may override it, not refuse it.
    const fractional = await client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 }, task: { ttl: 1.5 } } }, CreateTaskResultSchema);
    expect(fractional.task.ttl).toBeGreaterThan(0);
    for (const task of ["str", null, [], { ttl: "x" }, { ttl: -1 }, { ttl: null }]) {
      await expect(
        client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 }, task } }, CallToolResultSchema),
        JSON.stringify(task),
      ).rejects.toMatchObject({ code: -32602 });
    }
    const huge = await client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 }, task: { ttl: 1e308 } } }, CreateTaskResultSchema);
    expect(huge.task.ttl).toBeGreaterThan(0);
    expect(huge.task.ttl).toBeLessThan(1e308);
  });

  it("a tool error ends the task failed, with a statusMessage saying why; tasks/result answers the isError result as the call would", async () => {
    const { client } = await connectClient(url());
    const created = await client.request({ method: "tools/call", params: { name: "failing_job", arguments: {}, task: {} } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    let task = await client.experimental.tasks.getTask(taskId);
    for (let i = 0; i < 100 && task.status === "working"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      task = await client.experimental.tasks.getTask(taskId);
    }
    // basic/utilities/tasks §task status: a tool call whose result has isError is `failed`.
    expect(task.status).toBe("failed");
    expect(task.statusMessage).toMatch(/^Tool execution failed: /);
    const result = await client.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema);
    expect(result.isError).toBe(true);
    // Failed is terminal: it cannot be cancelled, and the refusal names the status the client sees.
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/already failed/) });
  });

  it("a task that failed with a protocol error: tasks/result's error names its task in data (related-task), as its response must", async () => {
    const { client } = await connectClient(url());
    const created = await client.request({ method: "tools/call", params: { name: "protocol_error_job", arguments: {}, task: {} } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    await expect(client.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema)).rejects.toMatchObject({
      code: -32603,
      data: { "io.modelcontextprotocol/related-task": { taskId } },
    });
  });

  it("a task id with a NUL or other control character is an unknown task (-32602), never a server error", async () => {
    const { client } = await connectClient(url());
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      await expect(client.request({ method, params: { taskId: "a\u0000b" } }, CallToolResultSchema), method).rejects.toMatchObject({ code: -32602 });
    }
  });

  it("progress of a task reaches the session's GET stream: its progressToken stays valid for the task's lifetime", async () => {
    const headers = await openSession(url(), "2025-11-25");
    const stream = await openStream(url(), { method: "GET", headers });
    const created = await post(
      url(),
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 1, label: "progress" }, task: {}, _meta: { progressToken: "task-progress-1" } } },
      headers,
    );
    expect(created.json).toMatchObject({ result: { task: { status: "working" } } });
    const seen: Record<string, unknown>[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !seen.some((m) => (m.params as { progress?: number } | undefined)?.progress === 1)) {
      const event = await stream.reader.next(Math.max(1, deadline - Date.now()));
      if (!event) break;
      if (methodOf(event) === "notifications/progress") seen.push(JSON.parse(event.data) as Record<string, unknown>);
    }
    expect(seen.length).toBeGreaterThan(0);
    // Each names its task (basic/utilities/tasks §related task metadata).
    const taskId = (created.json as { result: { task: { taskId: string } } }).result.task.taskId;
    for (const m of seen) expect(m.params).toMatchObject({ progressToken: "task-progress-1", total: 1, _meta: { "io.modelcontextprotocol/related-task": { taskId } } });
    expect(seen.at(-1)!.params).toMatchObject({ progress: 1 });
  });
});

describe("2026-07-28 task ids and answers the store could not hold", () => {
  const base = () => DATABASE_SERVERS[0].server();
  /** A request whose Mcp-Name carries the id Base64-encoded, as a value with a NUL must be sent. */
  async function withEncodedName(method: string, params: Record<string, unknown>): Promise<{ status: number; body: Answer }> {
    const res = await fetch(`${base()}${PATH}`, {
      method: "POST",
      headers: { ...statelessHeaders(V, method, {}), "mcp-name": `=?base64?${Buffer.from(String(params.taskId)).toString("base64")}?=` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } },
      }),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  }

  it("a NUL in the task id is -32602 on every tasks method; a NUL inside an answer is -32602 naming its path", async () => {
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      const { status, body } = await withEncodedName(method, { taskId: "a\u0000b", ...(method === "tasks/update" ? { inputResponses: {} } : {}) });
      expect(body.error?.code, method).toBe(-32602);
      expect(status, method).toBe(400);
    }
    const started = await call(base(), "tools/call", { name: "confirm_delete", arguments: { filename: "nul.txt" } });
    const taskId = started.result!.taskId as string;
    await until(base(), taskId, (t) => t.status === "input_required");
    const refused = await call(base(), "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { note: "a\u0000b" } } } });
    expect(refused.error).toMatchObject({ code: -32602, data: [{ path: ["inputResponses", "confirm", "content", "note"] }] });
    await call(base(), "tasks/cancel", { taskId });
  });
});
