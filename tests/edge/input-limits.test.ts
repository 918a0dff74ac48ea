import { connect } from "node:net";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { JSON_AND_SSE, LATEST, openSession, post, statelessHeaders } from "../support/mcp-http";
import { postHeldOpen } from "../support/held-post";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { Registry } from "../../lib/mcp/registry";
import { worldcrafterServer } from "../../lib/worlds/server-definition";
import { maxChunksFor } from "../../lib/http/read-body";
import { invalidArgumentOf } from "../support/tool-errors";

/**
 * The input limits of a public endpoint, on a server configured tight enough to reach them:
 * body size (413), batch length, JSON depth, header size (431), bounded strings and arrays in
 * every tool's arguments, list pages of two with cursors taken exactly as issued, and long-lived
 * streams that end inside their lifetime and let the client come back (GET resumes with
 * Last-Event-ID; listen ends with its result). Bodies: one that is not UTF-8, or carries a lone
 * surrogate, stores nothing; one that stalls is answered 408 within MCP_BODY_TIMEOUT_MS; one the
 * client abandons is not logged as a server failure; the built-in authorization server's
 * (/api/auth/*, /auth/submit/*) get 413 past 64 KiB, before the rest is read.
 */

let server: RunningNextServer;
let database: TestSchema;
let url = "";
/** Everything the server wrote (its request log goes to stderr too, see NODE_OPTIONS below). */
let serverOutput = "";

const LIMITS = {
  MCP_MAX_BODY_BYTES: "2048",
  MCP_MAX_BATCH: "3",
  MCP_MAX_JSON_DEPTH: "8",
  MCP_MAX_HEADER_BYTES: "4096",
  MCP_STREAM_MAX_LIFETIME_MS: "1500",
  MCP_LISTEN_MAX_LIFETIME_MS: "1500",
  MCP_RESUME_GRACE_MS: "5000",
  // Every list (17 tools, 5 resources, 6 templates, 3 prompts) has a second page.
  MCP_PAGE_SIZE: "2",
  MCP_BODY_TIMEOUT_MS: "1500",
};

/** The request log is written to stdout, which startNextServer does not keep: send it to stderr. */
const STDOUT_TO_STDERR = `--import=data:text/javascript,${encodeURIComponent("process.stdout.write = process.stderr.write.bind(process.stderr);")}`;

beforeAll(async () => {
  database = await migratedTestSchema("wc_limits");
  const port = await freePort();
  server = await startNextServer({
    port,
    env: {
      ...LIMITS,
      DATABASE_URL: database.url,
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      MCP_AUTH_KEYS_DIR: inject("devIssuerDir"),
      MCP_RATE_LIMITS: "0",
      MCP_LOG_REQUESTS: "1",
      NODE_OPTIONS: STDOUT_TO_STDERR,
    },
  });
  url = `${server.url}/api/mcp`;
  // The type declaration leaves `child` out, but startNextServer returns it.
  const child = (server as RunningNextServer & { child?: { stderr: Readable | null } }).child;
  child?.stderr?.on("data", (chunk: Buffer) => {
    serverOutput += chunk.toString("utf8");
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

const errorOf = (json: unknown) => (json as { error?: { code: number; data?: unknown } }).error;
/** The message of an `invalid_argument` isError result; undefined for any other answer. */
const invalidArgumentMessage = (json: unknown) => invalidArgumentOf((json as { result?: unknown }).result)?.message;

describe("request size limits", () => {
  it("a body over MCP_MAX_BODY_BYTES is refused with 413 before it is parsed", async () => {
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(4096) } });
    expect(r.status).toBe(413);
    expect(errorOf(r.json)?.code).toBe(-32600);
  });

  it("a 2025-03-26 batch longer than MCP_MAX_BATCH is refused whole", async () => {
    const batch = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    const r = await post(url, batch, { "mcp-protocol-version": "2025-03-26" });
    expect(r.status).toBe(400);
    expect(errorOf(r.json)).toMatchObject({ code: -32600, data: { maxBatch: 3 } });
  });

  it("JSON nested deeper than MCP_MAX_JSON_DEPTH is refused", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 12; i += 1) deep = { d: deep };
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { deep } });
    expect(r.status).toBe(400);
  });

  it("headers over MCP_MAX_HEADER_BYTES get 431", async () => {
    const r = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "x-padding": "p".repeat(5000) });
    expect(r.status).toBe(431);
    expect(errorOf(r.json)?.code).toBe(-32600);
  });

  it("every tool argument string and array is bounded by its schema (an invalid_argument tool error beyond)", async () => {
    const registry = new Registry(worldcrafterServer.contents);
    const unbounded: string[] = [];
    const walk = (schema: Record<string, unknown>, path: string) => {
      if (schema.type === "string" && typeof schema.maxLength !== "number" && !Array.isArray(schema.enum)) unbounded.push(path);
      if (schema.type === "array" && typeof schema.maxItems !== "number") unbounded.push(path);
      if (schema.type === "number" || schema.type === "integer") {
        if (typeof schema.maximum !== "number") unbounded.push(path);
      }
      for (const [key, child] of Object.entries((schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) walk(child, `${path}.${key}`);
      if (schema.items && typeof schema.items === "object") walk(schema.items as Record<string, unknown>, `${path}[]`);
    };
    for (const tool of registry.listTools().items) walk((tool as { inputSchema: Record<string, unknown> }).inputSchema, tool.name as string);
    expect(unbounded).toEqual([]);

    // And the server enforces them: one string and one array over their bounds.
    const call = (args: Record<string, unknown>) =>
      post(url, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "suggest_names", arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "suggest_names" });
    // 2026-07-28 server/tools §error handling: input validation errors are tool execution errors.
    expect(invalidArgumentMessage((await call({ seed: "s".repeat(101) })).json)).toMatch(/\bseed: /);
    expect(invalidArgumentMessage((await call({ count: 1000 })).json)).toMatch(/\bcount: /);
  });
});

describe("list pages (MCP_PAGE_SIZE 2): a cursor is the exact text the server issued", () => {
  const LISTS = [
    ["tools/list", "tools"],
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
    ["prompts/list", "prompts"],
  ] as const;
  /** The second page's cursor, o:2, as issued. */
  const SECOND = Buffer.from("o:2").toString("base64url");
  // Each of these decodes leniently to offset 2 (server/utilities/pagination: invalid cursors SHOULD be -32602).
  const ALTERED = [`${SECOND}x`, `${SECOND.slice(0, 2)}!${SECOND.slice(2)}`, SECOND.split("").join(" "), `${SECOND}====`, Buffer.from("o:02").toString("base64url")];

  /** Sends list requests as a client of `version` does: in a session before 2026-07-28, stateless from it. */
  async function lister(version: string): Promise<(method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>> {
    let id = 1;
    if (version === "2026-07-28") {
      const meta = { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} };
      return async (method, params) => (await post(url, { jsonrpc: "2.0", id: id++, method, params: { ...params, _meta: meta } }, statelessHeaders(version, method, params))).json as Record<string, unknown>;
    }
    const session = await openSession(url, version);
    return async (method, params) => (await post(url, { jsonrpc: "2.0", id: id++, method, params }, session)).json as Record<string, unknown>;
  }

  it.each(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])("%s: every list's nextCursor opens its second page; altered forms of it are -32602", async (version) => {
    const send = await lister(version);
    for (const [method, key] of LISTS) {
      const first = (await send(method, {})).result as Record<string, unknown[] | string>;
      expect(first.nextCursor, method).toBe(SECOND);
      const second = (await send(method, { cursor: SECOND })).result as Record<string, unknown[]>;
      expect(second[key]?.length, method).toBeGreaterThan(0);
      expect(second[key], method).not.toEqual(first[key]);
      for (const cursor of ALTERED) {
        expect(errorOf(await send(method, { cursor }))?.code, `${method} ${JSON.stringify(cursor)}`).toBe(-32602);
      }
    }
  });
});

/** Reads an SSE response until it ends (or `limitMs` passes); returns what arrived and when it ended. */
async function readToEnd(res: Response, limitMs: number): Promise<{ text: string; endedAfterMs: number | undefined }> {
  const started = Date.now();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = setTimeout(() => void reader.cancel(), limitMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, endedAfterMs: Date.now() - started };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, endedAfterMs: undefined };
  } finally {
    clearTimeout(deadline);
  }
}

describe("long-lived streams end inside their lifetime, and clients come back", () => {
  it("a GET stream connection ends after MCP_STREAM_MAX_LIFETIME_MS; Last-Event-ID resumes it", async () => {
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "limits", version: "1" } } });
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": LATEST };
    await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session);

    const first = await fetch(url, { headers: { accept: "text/event-stream", ...session } });
    expect(first.status).toBe(200);
    const { text, endedAfterMs } = await readToEnd(first, 6_000);
    // It ended by itself, on time, after telling the client where it was and how soon to retry.
    expect(endedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(endedAfterMs).toBeLessThan(4_000);
    const lastId = /^id: (\S+)$/m.exec(text)?.[1];
    expect(lastId, text).toBeDefined();
    expect(text).toMatch(/^retry: \d+$/m);

    const again = await fetch(url, { headers: { accept: "text/event-stream", "last-event-id": lastId!, ...session } });
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it("a subscriptions/listen stream ends after MCP_LISTEN_MAX_LIFETIME_MS with its result", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });
    expect(res.status).toBe(200);
    const { text, endedAfterMs } = await readToEnd(res, 6_000);
    expect(endedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(endedAfterMs).toBeLessThan(4_000);
    // The closing SubscriptionsListenResult is a result like any other: resultType, the
    // subscription's id and serverInfo in _meta (schema: servers SHOULD include it on every response).
    const closing = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as { id?: unknown; result?: unknown }).find((m) => m.id === "listen-1");
    expect(closing?.result).toEqual({
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1", "io.modelcontextprotocol/serverInfo": expect.objectContaining({ name: "worldcrafter" }) },
    });
  });
});

/** The raw answer to `head` + `body` sent on a fresh socket, which then stays open (or is destroyed after `destroyAfterMs`). */
function rawExchange(
  head: string,
  body: Buffer,
  options: { destroyAfterMs?: number; waitMs: number },
): Promise<{ text: string; closedByServer: boolean; ms: number; firstDataMs: number | undefined }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    let firstDataMs: number | undefined;
    let settled = false;
    const done = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      socket.destroy();
      resolve({ text, closedByServer, ms: Date.now() - started, firstDataMs });
    };
    const limit = setTimeout(() => done(false), options.waitMs);
    socket.on("data", (d: Buffer) => {
      firstDataMs ??= Date.now() - started;
      text += d.toString("utf8");
    });
    socket.on("end", () => done(true));
    socket.on("error", (error) => (settled ? undefined : reject(error)));
    socket.write(head);
    socket.write(body);
    if (options.destroyAfterMs !== undefined) setTimeout(() => done(false), options.destroyAfterMs);
  });
}

/** The body of a raw HTTP/1.1 answer, its chunked framing (if any) undone. */
function bodyOf(answer: string): string {
  const split = answer.indexOf("\r\n\r\n");
  const head = answer.slice(0, split).toLowerCase();
  let rest = answer.slice(split + 4);
  if (!head.includes("transfer-encoding: chunked")) return rest;
  let body = "";
  for (;;) {
    const line = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return body;
    body += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

const V2026 = "2026-07-28";
const META_2026 = { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {} };
/** A POST's request line and headers, framed by `length` (a Content-Length) or chunked. */
const headOf = (length: number | "chunked") =>
  `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: ${JSON_AND_SSE}\r\n` +
  `MCP-Protocol-Version: 2025-11-25\r\n${length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`}\r\n\r\n`;

describe("request bodies", () => {
  const createWorld = async (token: string, body: string | Uint8Array<ArrayBuffer>) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": "tools/call", "mcp-name": "create_world" },
      body,
    });
  const createWorldText = (name: string) => `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_world","arguments":{"name":"${name}","theme":"test"},"_meta":${JSON.stringify(META_2026)}}}`;

  it("a body that is not UTF-8, or a name with a lone surrogate, creates no world (RFC 8259 §8.1, §8.2)", async () => {
    const token = await tokenFor(server.url, newSubject("utf8"));
    const [before, after] = createWorldText("Bad#byte").split("#") as [string, string];
    const raw = await createWorld(token, new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)])));
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ id: null, error: { code: -32700 } });

    const surrogate = await createWorld(token, createWorldText("Sur\\ud800rogate"));
    expect(surrogate.status).toBe(200);
    expect(invalidArgumentMessage(await surrogate.json())).toMatch(/\bname: Unpaired surrogates are not allowed/);

    // Nothing was stored: the caller has no world at all (a replaced byte would read "Bad\uFFFDbyte").
    const listed = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, authorization: `Bearer ${token}`, "mcp-protocol-version": V2026, "mcp-method": "tools/call", "mcp-name": "list_worlds" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_worlds", arguments: {}, _meta: META_2026 } }),
    });
    expect(((await listed.json()) as { result: { structuredContent: { worlds: unknown[] } } }).result.structuredContent.worlds).toEqual([]);
  });

  it("a body that stalls is answered 408 within MCP_BODY_TIMEOUT_MS, and the connection is closed", async () => {
    // Content-Length 100, 10 bytes sent, then nothing: Node alone would wait 300 s, then answer an empty 408.
    const declared = await rawExchange(headOf(100), Buffer.from('{"jsonrpc"'), { waitMs: 8_000 });
    // Chunked, one chunk, then neither the next chunk nor the terminator.
    const chunked = await rawExchange(headOf("chunked"), Buffer.from('a\r\n{"jsonrpc"\r\n'), { waitMs: 8_000 });
    for (const answer of [declared, chunked]) {
      expect(answer.text, answer.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer.ms).toBeGreaterThanOrEqual(1_400);
      expect(answer.ms).toBeLessThan(6_000);
      expect(answer.text.toLowerCase()).toContain("connection: close");
      expect(JSON.parse(bodyOf(answer.text))).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Request Timeout: /), data: { timeoutMs: 1500 } } });
      expect(answer.closedByServer, "the server closes the connection after the 408").toBe(true);
    }
  });

  // Outside audit (2026-11-27): these refusals came at once but kept the connection, and Node then
  // read the unread body for as long as it trickled in (its requestTimeout, 300 s).
  it("a refusal answered before the body is read (415, 403, 405, 401) closes the connection at once", async () => {
    const head = (method: string, lines: string[]) =>
      `${method} /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAccept: ${JSON_AND_SSE}\r\nMCP-Protocol-Version: 2025-11-25\r\n${lines.join("\r\n")}\r\nContent-Length: 100000\r\n\r\n`;
    const cases: [number, string][] = [
      [415, head("POST", ["Content-Type: text/plain"])],
      [403, head("POST", ["Content-Type: application/json", "Origin: http://evil.example"])],
      [405, head("PUT", ["Content-Type: application/json"])],
      [401, head("POST", ["Content-Type: application/json", "Authorization: Bearer not-a-token"])],
    ];
    for (const [status, request] of cases) {
      const answer = await rawExchange(request, Buffer.from('{"jsonrpc"'), { waitMs: 5_000 });
      expect(answer.text, answer.text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer.text.toLowerCase()).toContain("connection: close");
      expect(answer.closedByServer, `${status}: the server closes the connection`).toBe(true);
      // Closed with the answer, not by the body timeout (1.5 s) after it: timed from the answer's
      // arrival, so a loaded machine that is slow to answer does not look like a late close.
      const closedAfterAnswerMs = answer.ms - (answer.firstDataMs ?? 0);
      expect(closedAfterAnswerMs, `${status}: closed ${closedAfterAnswerMs} ms after the answer`).toBeLessThan(1_000);
    }
  });

  // Outside probe, 2026-11-29: a body within the limit sent a byte per chunk cost about a hundred
  // times its size in memory and seconds of CPU (every chunk a buffer, a stream entry and a read).
  it("a chunked body in more pieces than maxChunksFor allows is refused 413; the same bytes in ordinary pieces are read", async () => {
    // This server's MCP_MAX_BODY_BYTES is 2048: 1,000 bytes are within it.
    const limit = 2048;
    const text = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"ping"}${" ".repeat(960)}`);
    const framed = (size: number) => {
      const parts: Buffer[] = [];
      for (let at = 0; at < text.length; at += size) {
        const piece = text.subarray(at, at + size);
        parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
      }
      parts.push(Buffer.from("0\r\n\r\n"));
      return Buffer.concat(parts);
    };
    expect(text.length).toBeGreaterThan(maxChunksFor(limit));
    const fragmented = await rawExchange(headOf("chunked"), framed(1), { waitMs: 8_000 });
    expect(fragmented.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(fragmented.text)).toContain(`Request body in more than ${maxChunksFor(limit)} chunks`);
    // 10 pieces: read whole, then answered as any ping without a session is (400, not 413).
    const ordinary = await rawExchange(headOf("chunked"), framed(100), { waitMs: 8_000 });
    expect(ordinary.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(ordinary.text)).toContain("-32600");
  });

  it("a body the client abandons mid-upload is its own cancellation, not a server error in the log", async () => {
    const logged = serverOutput.length;
    // Content-Length 500, 17 bytes, then the client closes the connection.
    await rawExchange(headOf(500), Buffer.from('{"jsonrpc":"2.0",'), { destroyAfterMs: 200, waitMs: 2_000 });
    // Time for the server to see the close and log what it made of it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const lines = serverOutput.slice(logged).split("\n").filter((line) => line.startsWith("{"));
    expect(lines.filter((line) => line.includes('"level":"error"')), lines.join("\n")).toEqual([]);
    expect(lines.filter((line) => line.includes('"code":-32603') || line.includes('"status":500')), lines.join("\n")).toEqual([]);
    expect(lines.some((line) => line.includes('"method":"HTTP POST"') && line.includes('"outcome":"cancelled"')), lines.join("\n")).toBe(true);
  });
});

describe("the authorization server's request bodies", () => {
  const KIB = 1024;
  const ROUTES = [
    { path: "/api/auth/oauth2/register", contentType: "application/json" },
    { path: "/api/auth/sign-in/email", contentType: "application/json" },
    { path: "/auth/submit/sign-in", contentType: "application/x-www-form-urlencoded" },
  ];

  it.each(ROUTES)("$path: a declared Content-Length over 64 KiB is refused 413 before a byte of the body is read", async ({ path, contentType }) => {
    const answer = await postHeldOpen(`${server.url}${path}`, { "content-type": contentType, "content-length": String(300 * KIB * KIB), origin: server.url }, []);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({ error: "invalid_request", error_description: "Request body larger than 65536 bytes" });
  });

  it.each(ROUTES)("$path: a chunked body is refused 413 once past 64 KiB, without waiting for its end", async ({ path, contentType }) => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(16 * KIB, "a"));
    const answer = await postHeldOpen(`${server.url}${path}`, { "content-type": contentType, "transfer-encoding": "chunked", origin: server.url }, chunks);
    expect(answer.status).toBe(413);
  });

  it.each(ROUTES)("$path: a chunked body of single bytes is refused 413 past maxChunksFor(64 KiB) pieces", async ({ path, contentType }) => {
    const chunks = Array.from({ length: maxChunksFor(64 * KIB) + 50 }, () => Buffer.from("a"));
    const answer = await postHeldOpen(`${server.url}${path}`, { "content-type": contentType, "transfer-encoding": "chunked", origin: server.url }, chunks);
    expect(answer.status).toBe(413);
  });

  it("a body within the limit is read whole: a registration padded to 60 KiB is stored", async () => {
    const metadata = { client_name: "padded", redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none", padding: "x".repeat(60 * KIB) };
    const res = await fetch(`${server.url}/api/auth/oauth2/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as { client_name?: string }).client_name).toBe("padded");
  });
});

