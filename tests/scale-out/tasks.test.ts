import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTwoInstances, type TwoInstances } from "../support/two-instances";
import { startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { statelessHeaders } from "../support/mcp-http";
import { initialize, listenForTasks, postMessage, taskStatusesUntilQuiet } from "../support/raw-sessions";

/**
 * Durable tasks (io.modelcontextprotocol/tasks, docs/tasks.md) across two instances sharing one
 * PostgreSQL schema and one Redis: a task started on one instance is read, answered and
 * cancelled on the other; an instance killed mid-task leaves a task that reads `failed` once its
 * lease (short here) runs out; another subject learns nothing of a task.
 */
const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const LEASE_MS = 1_500;

let pair: TwoInstances;
let nextId = 1;

interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One 2026-07-28 request straight to `base` (no proxy): the test picks the instance. */
async function call(base: string, path: string, method: string, params: Record<string, unknown>, opts: { token?: string; tasks?: boolean; forwardedFor?: string } = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      ...statelessHeaders(V, method, params),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": opts.tasks === false ? {} : { extensions: { [TASKS]: {} }, elicitation: {} },
        },
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  // A call that streamed (progress) ends with its answer as the last SSE data line.
  const body = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? JSON.parse(text.split("\n").filter((l) => l.startsWith("data:")).at(-1)!.slice(5))
    : JSON.parse(text);
  return body as Answer;
}

const PRODUCT = "/api/mcp";
const FIXTURE = "/api/conformance/mcp";

/** Who reads: a bearer token, or an anonymous client at the address its proxy forwards. */
type Who = string | { forwardedFor: string } | undefined;

async function getTask(base: string, path: string, taskId: string, who?: Who): Promise<Record<string, unknown>> {
  const answer = await call(base, path, "tasks/get", { taskId }, typeof who === "string" ? { token: who } : (who ?? {}));
  if (!answer.result) throw new Error(`tasks/get failed: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function until(base: string, path: string, taskId: string, done: (task: Record<string, unknown>) => boolean, who?: Who, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(base, path, taskId, who);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const terminal = (t: Record<string, unknown>) => ["completed", "failed", "cancelled"].includes(t.status as string);

/**
 * A subscriptions/listen stream on `base` for `taskId`: its messages until one satisfies `enough`,
 * the stream ends, or `timeoutMs` passes; the stream is closed then.
 */
async function listenUntil(base: string, taskId: string, enough: (message: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const stop = new AbortController();
  const res = await fetch(`${base}${FIXTURE}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: `listen-${taskId}`,
      method: "subscriptions/listen",
      params: {
        notifications: { taskIds: [taskId] },
        _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } },
      },
    }),
    signal: stop.signal,
  });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: Record<string, unknown>[] = [];
  let buffer = "";
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  try {
    while (!seen.some(enough)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (const line of buffer.split("\n")) if (line.startsWith("data:")) seen.push(JSON.parse(line.slice(5)) as Record<string, unknown>);
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    }
  } catch (thrown) {
    if (!stop.signal.aborted) throw thrown;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return seen;
}

beforeAll(async () => {
  pair = await startTwoInstances({ prefix: "wc_tasks", env: { MCP_TASK_LEASE_MS: String(LEASE_MS), MCP_TASK_POLL_INTERVAL_MS: "200" } });
});

afterAll(async () => {
  await pair?.stop();
});

describe("durable tasks across two instances", () => {
  /** A result with its signed download links and their expiry times blanked out. */
  const sameLinks = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value)
        .replace(/\/api\/files\/[A-Za-z0-9_.-]+/g, "/api/files/<link>")
        .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>"),
    );

  it("export_world as a task: started on one instance, read on the other, its result equals the plain call's", async () => {
    const token = await pair.tokenFor("tasks-alice");
    const created = await call(pair.a.url, PRODUCT, "tools/call", { name: "create_world", arguments: { name: "Taskmoor", theme: "fantasy" } }, { token, tasks: false });
    const worldId = (created.result?.structuredContent as { world: { id: string } }).world.id;
    expect(worldId).toBeTruthy();

    const plain = await call(pair.b.url, PRODUCT, "tools/call", { name: "export_world", arguments: { worldId } }, { token, tasks: false });
    expect(plain.result?.resultType).toBe("complete");

    const started = await call(pair.a.url, PRODUCT, "tools/call", { name: "export_world", arguments: { worldId } }, { token });
    expect(started.result).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number), pollIntervalMs: 200 });
    expect(started.result).not.toHaveProperty("content");
    const taskId = started.result!.taskId as string;

    const done = await until(pair.b.url, PRODUCT, taskId, terminal, token);
    expect(done.status).toBe("completed");
    const result = done.result as Record<string, unknown>;
    // Equal but for the download links: each call signs its own, with an expiry to the second.
    expect(sameLinks(result.content)).toEqual(sameLinks(plain.result!.content));
    expect(sameLinks(result.structuredContent)).toEqual(sameLinks(plain.result!.structuredContent));
    expect(JSON.stringify(result.structuredContent)).toContain("/api/files/");

    // Another subject: tasks/get and tasks/cancel answer exactly as for an id that never existed.
    const bob = await pair.tokenFor("tasks-bob");
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const theirs = await call(pair.b.url, PRODUCT, method, { taskId }, { token: bob });
      const none = await call(pair.b.url, PRODUCT, method, { taskId: missing }, { token: bob });
      expect(theirs.result).toBeUndefined();
      expect(theirs.error?.code).toBe(-32602);
      expect(theirs.error?.message.replace(taskId, "ID")).toBe(none.error?.message.replace(missing, "ID"));
    }
    // tasks/list is not part of the 2026-07-28 extension (SEP-2663): nobody lists anybody's tasks.
    expect((await call(pair.a.url, PRODUCT, "tasks/list", {}, { token: bob })).error?.code).toBe(-32601);
    // The owner still reads it, untouched by the other subject's cancel.
    expect((await getTask(pair.a.url, PRODUCT, taskId, token)).status).toBe("completed");
  });

  it("a token of the task's own subject without its tool's scopes reads nothing of it: 403 insufficient_scope, in both eras", async () => {
    const token = await pair.tokenFor("tasks-dave");
    const narrow = await pair.tokenFor("tasks-dave", ["openid"]);
    const created = await call(pair.a.url, PRODUCT, "tools/call", { name: "create_world", arguments: { name: "Scopeholm", theme: "fantasy" } }, { token, tasks: false });
    const worldId = (created.result?.structuredContent as { world: { id: string } }).world.id;
    const started = await call(pair.a.url, PRODUCT, "tools/call", { name: "export_world", arguments: { worldId } }, { token });
    const taskId = started.result!.taskId as string;
    await until(pair.b.url, PRODUCT, taskId, terminal, token);
    for (const [method, extra] of [["tasks/get", {}], ["tasks/cancel", {}], ["tasks/update", { inputResponses: {} }]] as const) {
      const res = await fetch(`${pair.b.url}${PRODUCT}`, {
        method: "POST",
        headers: { ...statelessHeaders(V, method, { taskId }), authorization: `Bearer ${narrow}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { taskId, ...extra, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } } }),
      });
      const body = (await res.json()) as Answer;
      expect(res.status, method).toBe(403);
      expect(res.headers.get("www-authenticate"), method).toMatch(/error="insufficient_scope"/);
      expect(body.error, method).toMatchObject({ code: -32001, data: { requiredScopes: expect.arrayContaining(["worlds:read"]) } });
      expect(JSON.stringify(body), method).not.toContain("Scopeholm");
    }
    // The task is untouched: the full token still reads it completed.
    expect((await getTask(pair.a.url, PRODUCT, taskId, token)).status).toBe("completed");

    // 2025-11-25: the same task wire in a session of the narrow token.
    const session = await initialize(`${pair.a.url}${PRODUCT}`, { token: narrow });
    await postMessage(`${pair.a.url}${PRODUCT}`, session.headers, { jsonrpc: "2.0", method: "notifications/initialized" });
    const legacy = await initialize(`${pair.a.url}${PRODUCT}`, { token });
    await postMessage(`${pair.a.url}${PRODUCT}`, legacy.headers, { jsonrpc: "2.0", method: "notifications/initialized" });
    const legacyTask = await postMessage(`${pair.a.url}${PRODUCT}`, legacy.headers, { jsonrpc: "2.0", id: "t", method: "tools/call", params: { name: "export_world", arguments: { worldId }, task: {} } });
    const legacyId = ((legacyTask.response?.result as { task: { taskId: string } }).task).taskId;
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      const reply = await postMessage(`${pair.a.url}${PRODUCT}`, session.headers, { jsonrpc: "2.0", id: method, method, params: { taskId: legacyId } });
      expect(reply.status, method).toBe(403);
      expect(reply.headers.get("www-authenticate"), method).toMatch(/error="insufficient_scope"/);
      expect(reply.response?.error, method).toMatchObject({ code: -32001 });
      expect(reply.text, method).not.toContain("Scopeholm");
    }
  });

  it("a plain call of a task-capable tool from a client without the extension stays synchronous", async () => {
    const token = await pair.tokenFor("tasks-carol");
    const outline = await call(pair.a.url, PRODUCT, "tools/call", { name: "draft_world_outline", arguments: { name: "Plainfield" } }, { token, tasks: false });
    expect(outline.result?.resultType).toBe("complete");
    const asTask = await call(pair.b.url, PRODUCT, "tools/call", { name: "draft_world_outline", arguments: { name: "Plainfield" } }, { token });
    expect(asTask.result?.resultType).toBe("task");
    const done = await until(pair.a.url, PRODUCT, asTask.result!.taskId as string, terminal, token);
    expect((done.result as Record<string, unknown>).structuredContent).toEqual(outline.result!.structuredContent);
  });

  it("tasks/cancel on the other instance fires the handler's signal on the running one: the run stops long before its end", async () => {
    const started = await call(pair.a.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 30, label: "cancel-me" } });
    const taskId = started.result!.taskId as string;
    await until(pair.b.url, FIXTURE, taskId, (t) => typeof t.progress === "number" && t.progress >= 1);
    const ack = await call(pair.b.url, FIXTURE, "tasks/cancel", { taskId });
    expect(ack.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const cancelledAt = Date.now();
    expect((await getTask(pair.a.url, FIXTURE, taskId)).status).toBe("cancelled");
    // The handler on instance a settles only when its signal fires (slow_compute sleeps on it for
    // 30 s otherwise); the runtime then marks the cancelled task's run as stopped.
    const stopped = await until(pair.b.url, FIXTURE, taskId, (t) => t.statusMessage === "Cancelled by the client; its run has stopped", undefined, 5_000);
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(stopped.status).toBe("cancelled");
    expect(stopped.progress).toBeLessThan(30);
    expect(stopped).not.toHaveProperty("result");
  });

  it("an input round inside a task is answered through the other instance", async () => {
    const started = await call(pair.a.url, FIXTURE, "tools/call", { name: "confirm_delete", arguments: { filename: "x.txt" } });
    const taskId = started.result!.taskId as string;
    const asking = await until(pair.b.url, FIXTURE, taskId, (t) => t.status === "input_required");
    const keys = Object.keys(asking.inputRequests as Record<string, unknown>);
    expect(keys).toEqual(["confirm"]);
    const ack = await call(pair.b.url, FIXTURE, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    expect(ack.result?.resultType).toBe("complete");
    const done = await until(pair.b.url, FIXTURE, taskId, terminal);
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "Deleted x.txt" }] });
  });

  it("status notifications reach a listen stream on the other instance, for the owner's task ids only", async () => {
    const started = await call(pair.a.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 2, label: "listened" } });
    const taskId = started.result!.taskId as string;
    const seen = await listenUntil(pair.b.url, taskId, (m) => m.method === "notifications/tasks", 10_000);
    expect(seen[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: [taskId] } } });
    const note = seen.find((m) => m.method === "notifications/tasks") as { params: Record<string, unknown> };
    expect(note.params).toMatchObject({ taskId, status: "completed", result: { content: [{ type: "text", text: "Computed listened after 2 s" }] } });

    // Without the extension, asking for task ids is -32021.
    const refused = await call(pair.b.url, FIXTURE, "subscriptions/listen", { notifications: { taskIds: [taskId] } }, { tasks: false });
    expect(refused.error?.code).toBe(-32021);
  });

  it("a tasks/update the server ignores changes nothing on either instance: lastUpdatedAt stays, the listen stream hears nothing", async () => {
    // Outside review (2026-07-28 tasks): an answer to a key never asked moved lastUpdatedAt and sent
    // notifications/tasks input_required; a repeated answer after the end sent `completed` again.
    const quietMs = 1_000;
    const started = await call(pair.a.url, FIXTURE, "tools/call", { name: "confirm_delete", arguments: { filename: "a.txt" } });
    const taskId = started.result!.taskId as string;
    const asking = await until(pair.b.url, FIXTURE, taskId, (t) => t.status === "input_required");
    expect(Object.keys(asking.inputRequests as object)).toEqual(["confirm"]);
    const stream = await listenForTasks(`${pair.b.url}${FIXTURE}`, [taskId]);

    expect((await call(pair.a.url, FIXTURE, "tasks/update", { taskId, inputResponses: { nope: { action: "accept", content: { confirm: true } } } })).result?.resultType).toBe("complete");
    expect(await getTask(pair.b.url, FIXTURE, taskId)).toEqual(asking);
    expect(await taskStatusesUntilQuiet(stream, quietMs)).toEqual([]);

    await call(pair.a.url, FIXTURE, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    const done = await until(pair.b.url, FIXTURE, taskId, terminal);
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "Deleted a.txt" }] });
    const heard = await taskStatusesUntilQuiet(stream, quietMs);
    expect(heard.at(-1), JSON.stringify(heard)).toBe("completed");
    expect(heard.filter((status) => status !== "working" && status !== "completed"), JSON.stringify(heard)).toEqual([]);

    for (const base of [pair.a.url, pair.b.url]) {
      expect((await call(base, FIXTURE, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } })).result?.resultType).toBe("complete");
    }
    expect(await getTask(pair.b.url, FIXTURE, taskId)).toEqual(done);
    expect(await taskStatusesUntilQuiet(stream, quietMs)).toEqual([]);
  });

  it("a required-task tool refuses a plain call with -32021 naming the extension", async () => {
    const refused = await call(pair.a.url, FIXTURE, "tools/call", { name: "failing_job", arguments: {} }, { tasks: false });
    expect(refused.error?.code).toBe(-32021);
    expect(refused.error?.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  });

  // Last: it kills instance a.
  it("killing the running instance mid-task: a listen stream elsewhere hears it failed with nobody reading it, and it reads failed within the lease", async () => {
    const started = await call(pair.a.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 60, label: "killed" } });
    const taskId = started.result!.taskId as string;
    await until(pair.b.url, FIXTURE, taskId, (t) => typeof t.progress === "number");
    // Outside review (2026-11-28): a client that only listened heard nothing until someone read the
    // task. The listen stream on b now reads its tasks every lease period.
    const failedNote = (m: Record<string, unknown>) => m.method === "notifications/tasks" && (m.params as { status?: unknown }).status === "failed";
    const listening = listenUntil(pair.b.url, taskId, failedNote, LEASE_MS * 6);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the stream is open before the kill
    process.kill(pair.a.pid, "SIGKILL");
    const killedAt = Date.now();
    const heard = await listening;
    expect(heard.find(failedNote), JSON.stringify(heard)).toMatchObject({ params: { taskId, status: "failed" } });
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 3 + 1_000);
    const failed = await until(pair.b.url, FIXTURE, taskId, terminal, undefined, LEASE_MS * 4);
    expect(failed.status).toBe("failed");
    expect((failed.error as { message: string }).message).toMatch(/instance running this task stopped/);
    expect(failed).not.toHaveProperty("result");
  });
});

describe("task limits (one instance, tight limits)", () => {
  let server: RunningNextServer;
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await migratedTestSchema("wc_tasks_limits");
    server = await startNextServer({
      readyPath: FIXTURE,
      env: {
        MCP_CONFORMANCE_FIXTURES: "1",
        BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
        DATABASE_URL: schema.url,
        MCP_TASKS_MAX_RUNNING_PER_CALLER: "2",
        MCP_TASKS_MAX_STORED_PER_CALLER: "5",
        MCP_TASK_MAX_RESULT_BYTES: "1024",
        // The test stands behind a "proxy" at the loopback: X-Forwarded-For names the anonymous client.
        MCP_TRUSTED_PROXIES: "127.0.0.1,::1",
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await schema?.drop();
  });

  it("a caller past its running-task limit gets the documented -32000 with data.taskLimit", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 60 } })).result!.taskId as string);
    const refused = await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 60 } });
    expect(refused.error).toMatchObject({ code: -32000, data: { taskLimit: "working", limit: 2 } });
    expect(refused.error?.message).toMatch(/Too many running tasks: at most 2 per caller/);
    for (const taskId of ids) await call(server.url, FIXTURE, "tasks/cancel", { taskId });
    const again = await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } });
    expect(again.result?.resultType).toBe("task");
  });

  it("a result larger than the bound fails the task with a message giving both sizes", async () => {
    const started = await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "x".repeat(2000) } });
    const ended = await until(server.url, FIXTURE, started.result!.taskId as string, terminal);
    expect(ended.status).toBe("failed");
    expect((ended.error as { message: string }).message).toMatch(/result \(\d+ bytes\) exceeds the 1024-byte limit/);
    expect(ended).not.toHaveProperty("result");
  });

  it("anonymous callers own their tasks by address: one cannot read or cancel another's, nor fill another's limit", async () => {
    const a = { forwardedFor: "203.0.113.7" };
    const b = { forwardedFor: "203.0.113.8" };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const taskId = (await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, a)).result!.taskId as string;
      await until(server.url, FIXTURE, taskId, terminal, a);
      ids.push(taskId);
    }
    const full = await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, a);
    expect(full.error).toMatchObject({ code: -32000, data: { taskLimit: "stored", limit: 5 } });
    // B is another anonymous client: A's full store is not its, and A's tasks are unknown to it.
    const mine = await call(server.url, FIXTURE, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, b);
    expect(mine.result?.resultType).toBe("task");
    expect((await call(server.url, FIXTURE, "tasks/get", { taskId: ids[0] }, b)).error?.code).toBe(-32602);
    expect((await call(server.url, FIXTURE, "tasks/cancel", { taskId: ids[0] }, b)).error?.code).toBe(-32602);
    expect((await call(server.url, FIXTURE, "tasks/get", { taskId: mine.result!.taskId as string }, a)).error?.code).toBe(-32602);
    expect((await call(server.url, FIXTURE, "tasks/get", { taskId: ids[0] }, a)).result?.status).toBe("completed");
    await call(server.url, FIXTURE, "tasks/cancel", { taskId: mine.result!.taskId as string }, b);
  });
});
