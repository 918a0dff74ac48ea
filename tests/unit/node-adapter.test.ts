import http from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "../../lib/config/env";
import { createMcpEndpoint, defineTool } from "../../lib/mcp";
import { nodeListener } from "../../lib/http/node-adapter";
import { wholeBodyOf, wholeBodyResponse } from "../../lib/http/whole-body";
import type { HandleInit } from "../../lib/http/handle-init";

/**
 * lib/http/node-adapter.ts: the core on a real node:http server, driven over real sockets. Both
 * body paths (Content-Length read by the adapter; chunked read and counted by the core), both
 * answer paths (JSON written whole; SSE streamed), limits, and cancellation when the client leaves.
 */
const MAX_BODY = 2048;
const BODY_TIMEOUT_MS = 500;
const V = "2026-07-28";

/** A tool that waits until its call is cancelled, and says so. */
function waiting() {
  let seen: (reason: unknown) => void = () => undefined;
  const cancelled = new Promise<unknown>((resolve) => (seen = resolve));
  const tool = defineTool({
    name: "waits",
    description: "Wait until cancelled",
    input: z.object({}),
    handler: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          seen(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      }),
  });
  return { tool, cancelled };
}

const echo = defineTool({
  name: "echo",
  description: "Echo a message",
  input: z.object({ message: z.string().max(1000) }),
  handler: ({ message }) => ({ content: [{ type: "text", text: message }] }),
});
const steps = defineTool({
  name: "steps",
  description: "Report three progress steps, then answer",
  input: z.object({}),
  handler: async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3);
    return { content: [{ type: "text", text: "done" }] };
  },
});
const regional = defineTool({
  name: "regional",
  description: "Echo a region mirrored in a header",
  input: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
  handler: ({ region }) => ({ content: [{ type: "text", text: region }] }),
});
const { tool: waits, cancelled: abortSeen } = waiting();

let server: http.Server;
let port = 0;

beforeAll(async () => {
  // The adapter reads declared bodies with its deadline, the core chunked ones with its own: the same.
  const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0", MCP_MAX_BODY_BYTES: String(MAX_BODY), MCP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
  const endpoint = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [echo, steps, waits, regional] } }, env);
  server = http.createServer(nodeListener(endpoint, { baseUrl: "http://127.0.0.1", maxBodyBytes: MAX_BODY, bodyTimeoutMs: BODY_TIMEOUT_MS }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const call = (id: number, name: string, args: Record<string, unknown>, extraMeta: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: { ...meta, ...extraMeta } } });
const headersFor = (name: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": V,
  "mcp-method": "tools/call",
  "mcp-name": name,
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One POST; `chunked` sends the body without Content-Length, in two writes. */
function post(body: string | Buffer, name: string, chunked = false, extra: Record<string, string | string[]> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...headersFor(name), ...extra };
    if (!chunked) headers["content-length"] = String(Buffer.byteLength(body));
    const req = http.request({ host: "127.0.0.1", port, path: "/api/mcp", method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    if (chunked) {
      const bytes = Buffer.from(body);
      req.write(bytes.subarray(0, 10));
      req.end(bytes.subarray(10));
    } else req.end(body);
  });
}

describe("the core on node:http through nodeListener", () => {
  it("answers a body with Content-Length as JSON written whole, with its length", async () => {
    const res = await post(call(1, "echo", { message: "héllo" }), "echo");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["transfer-encoding"]).toBeUndefined();
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body)).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "héllo" }] } });
  });

  // The adapter appends raw lines to Headers, which joins them: two Mcp-Param-Region lines "us"
  // and "eu" would read as the body's "us, eu". It names repeated lines for the checks.
  it("refuses a mirrored header sent on two lines (-32020), where one line of the same text passes", async () => {
    const twice = await post(call(20, "regional", { region: "us, eu" }), "regional", false, { "mcp-param-region": ["us", "eu"] });
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.body)).toMatchObject({ id: 20, error: { code: -32020, message: expect.stringContaining("more than once") } });
    const once = await post(call(21, "regional", { region: "us, eu" }), "regional", false, { "mcp-param-region": "us, eu" });
    expect(JSON.parse(once.body)).toMatchObject({ id: 21, result: { content: [{ text: "us, eu" }] } });
  });

  it("reads a chunked body through the core", async () => {
    const res = await post(call(2, "echo", { message: "chunked" }), "echo", true);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 2, result: { content: [{ text: "chunked" }] } });
  });

  it("decodes a body as Request.text() does (a UTF-8 BOM is dropped)", async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(call(3, "echo", { message: "bom" }))]);
    const res = await post(withBom, "echo");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 3, result: { content: [{ text: "bom" }] } });
  });

  it("refuses a body that is not UTF-8 with -32700 (RFC 8259 §8.1), declared or chunked", async () => {
    const [before, after] = call(31, "echo", { message: "Bad#byte" }).split("#") as [string, string];
    const bytes = Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
    for (const chunked of [false, true]) {
      const res = await post(bytes, "echo", chunked);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { code: -32700 } });
    }
  });

  it("answers a body that stalls 408 after bodyTimeoutMs and closes the connection, declared or chunked", async () => {
    const head = (framing: string) =>
      `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: ${V}\r\n${framing}\r\n\r\n`;
    for (const sent of [`${head("Content-Length: 100")}{"jsonrpc"`, `${head("Transfer-Encoding: chunked")}a\r\n{"jsonrpc"\r\n`]) {
      const started = Date.now();
      const answer = await new Promise<{ text: string; ended: boolean }>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        let text = "";
        const limit = setTimeout(() => (socket.destroy(), resolve({ text, ended: false })), 5_000);
        socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
        socket.on("end", () => (clearTimeout(limit), socket.destroy(), resolve({ text, ended: true })));
        socket.write(sent);
      });
      expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
      expect(answer.text).toContain('"data":{"timeoutMs":500}');
      expect(answer.ended, "the server closed the connection").toBe(true);
    }
  });

  it("refuses a body over the limit with 413, declared or chunked", async () => {
    const big = call(4, "echo", { message: "x".repeat(MAX_BODY) });
    for (const chunked of [false, true]) {
      const res = await post(big, "echo", chunked);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32600, data: { maxBytes: MAX_BODY } } });
    }
  });

  it("streams an SSE answer as it comes (progress, then the result)", async () => {
    const res = await post(call(5, "steps", {}, { progressToken: "p5" }), "steps");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    const messages = res.body
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number });
    expect(messages.filter((m) => m.method === "notifications/progress")).toHaveLength(3);
    expect(messages.at(-1)).toMatchObject({ id: 5, result: { content: [{ text: "done" }] } });
  });

  it("cancels the call when the client closes the connection", async () => {
    const req = http.request({ host: "127.0.0.1", port, path: "/api/mcp", method: "POST", headers: headersFor("waits") });
    req.on("error", () => undefined);
    req.end(call(6, "waits", {}));
    await new Promise((resolve) => setTimeout(resolve, 200));
    req.destroy();
    await expect(Promise.race([abortSeen, new Promise((_, reject) => setTimeout(() => reject(new Error("no abort within 5 s")), 5000))])).resolves.toBeDefined();
  });
});

describe("handle(request, { body })", () => {
  const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0", MCP_MAX_BODY_BYTES: String(MAX_BODY) });
  const endpoint = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [echo] } }, env);
  const bare = () => new Request("http://127.0.0.1/api/mcp", { method: "POST", headers: headersFor("echo") });

  it("serves the text a host read, not the Request's (absent) body", async () => {
    const res = await endpoint.handle(bare(), { body: call(7, "echo", { message: "given" }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 7, result: { content: [{ text: "given" }] } });
  });

  it("holds the given text to the same size limit", async () => {
    const res = await endpoint.handle(bare(), { body: call(8, "echo", { message: "é".repeat(MAX_BODY / 2) }) });
    expect(res.status).toBe(413);
  });

  it("builds JSON answers without a body stream for a host that writes whole bodies", async () => {
    const res = await endpoint.handle(bare(), { body: call(9, "echo", { message: "side" }), wholeBodies: true });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(JSON.parse(String(wholeBodyOf(res)))).toMatchObject({ id: 9, result: { content: [{ text: "side" }] } });
  });

  it("ignores a framework's own second argument (Next passes { params })", async () => {
    const request = new Request("http://127.0.0.1/api/mcp", { method: "POST", headers: headersFor("echo"), body: call(10, "echo", { message: "own body" }) });
    const res = await endpoint.handle(request, { params: Promise.resolve({}) } as unknown as HandleInit);
    expect(await res.json()).toMatchObject({ id: 10, result: { content: [{ text: "own body" }] } });
  });
});

describe("handle(request, { signal })", () => {
  const within = (promise: Promise<unknown>, ms: number) =>
    Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms))]);

  const eras = [
    { era: "2026-07-28", headers: headersFor("waits"), body: call(11, "waits", {}) },
    {
      era: "2025-11-25",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "waits", arguments: {} } }),
    },
  ];
  for (const { era, headers, body } of eras) {
    it(`cancels the call when the signal given beside the Request aborts (${era})`, async () => {
      const { tool, cancelled } = waiting();
      const env = loadEnv({ MCP_SESSION_MODE: "stateless", MCP_LOG_REQUESTS: "0" });
      const endpoint = createMcpEndpoint({ info: { name: "t", version: "1" }, contents: { tools: [tool] } }, env);
      const controller = new AbortController();
      // The Request's own signal never aborts: only the one handed over can end the call.
      const answer = endpoint.handle(new Request("http://127.0.0.1/api/mcp", { method: "POST", headers }), { body, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error("the client went away"));
      await expect(within(cancelled, 5000)).resolves.toBeDefined();
      // Nothing is answered for a cancelled call (an empty stream, or nothing to read).
      const res = await within(answer, 5000);
      expect((res as Response).status).toBe(200);
    });
  }
});

describe("wholeBodyOf", () => {
  it("gives the body of an answer built for the side table; any other is read from its stream", async () => {
    const side = wholeBodyResponse('{"ok":true}', { status: 200 }, true);
    expect(side.body).toBeNull();
    expect(wholeBodyOf(side)).toBe('{"ok":true}');
    const streamed = wholeBodyResponse('{"ok":true}', { status: 200 });
    expect(wholeBodyOf(streamed)).toBeUndefined();
    expect(await streamed.text()).toBe('{"ok":true}');
    expect(wholeBodyOf(new Response("x"))).toBeUndefined();
  });

  it("streams a whole answer as its one chunk, any number of times from shared bytes", async () => {
    const bytes = new TextEncoder().encode('{"page":true}');
    const chunks: Uint8Array[][] = [];
    for (let i = 0; i < 3; i++) {
      const got: Uint8Array[] = [];
      const reader = wholeBodyResponse(bytes, { status: 200 }).body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) got.push(read.value);
      chunks.push(got);
    }
    for (const got of chunks) expect(got).toEqual([bytes]);
    // Handed on by reference and never detached: the shared bytes are still whole.
    expect(new TextDecoder().decode(bytes)).toBe('{"page":true}');
    expect(await wholeBodyResponse("", { status: 200 }).text()).toBe("");
  });
});
