/**
 * Fuzz: at least FUZZ_RUNS (10 000) generated HTTP requests — malformed, truncated, oversized and
 * odd-but-valid JSON-RPC, in every protocol revision — against a production server. Every answer
 * must be well-formed for its status (a JSON-RPC response, an SSE stream of JSON-RPC messages, or
 * an empty body), no status may be 5xx, none may hang (each ends within 10 s: the server's time
 * limits are set short), and the server's memory must stay bounded.
 *
 * The cases come from fast-check with a seed printed at the start (FUZZ_SEED replays a run).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { freePort, startNextServer, type RunningNextServer } from "../support/next-server.mjs";
import { migratedTestSchema, type TestSchema } from "../support/test-database";
import { currentKeyRow, signAccessToken } from "../../lib/authorization-server/key-file";

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 16;
const HANG_MS = 10_000;
const MAX_BODY = 64 * 1024;
const VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
const METHODS = [
  "initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list",
  "resources/subscribe", "prompts/list", "prompts/get", "completion/complete", "logging/setLevel", "server/discover",
  "subscriptions/listen", "tools/batch", "notifications/initialized", "notifications/cancelled", "notifications/progress",
  "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list",
];
const TOOLS = ["suggest_names", "draft_world_outline", "get_world", "create_world", "test_simple_text", "test_error_handling", "test_throw", "test_hang", "test_slow", "test_structured", "test_elicitation", "json_schema_2020_12_tool"];

let server: RunningNextServer;
let database: TestSchema;
let issuerDir = "";
/** A real token, so the data tools (not only their sign-in answers) meet the hostile strings. */
let token = "";
/**
 * The owner of the pool of valid sessions: a subject no generated initialize uses, so the
 * per-caller session cap (which the fuzz's own initializes meet) never ends the pool's sessions.
 */
let poolToken = "";
const sessions: Record<string, string[]> = {};

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

beforeAll(async () => {
  database = await migratedTestSchema("wc_fuzz");
  const port = await freePort();
  issuerDir = mkdtempSync(join(tmpdir(), "wc-fuzz-issuer-"));
  const origin = `http://127.0.0.1:${port}`;
  await currentKeyRow(issuerDir);
  token = await signAccessToken(issuerDir, { issuer: origin, audience: `${origin}/api/mcp`, subject: "fuzz-user", scopes: ["worlds:read", "worlds:write"] });
  poolToken = await signAccessToken(issuerDir, { issuer: origin, audience: `${origin}/api/mcp`, subject: "fuzz-pool", scopes: ["worlds:read", "worlds:write"] });
  server = await startNextServer({
    port,
    env: {
      DATABASE_URL: database.url,
      MCP_RESOURCE_URL: `http://127.0.0.1:${port}/api/mcp`,
      MCP_CONFORMANCE_FIXTURES: "1",
      MCP_AUTH_MODE: "mixed",
      BETTER_AUTH_SECRET: "test-only-better-auth-secret-0123456789abcdef",
      MCP_AUTH_KEYS_DIR: issuerDir,
      MCP_RATE_LIMITS: "0",
      // The production default, not the test servers' loopback allowance: every fuzz initialize is
      // one caller's, so the per-caller cap (its own oldest session ends) runs all the time.
      MCP_MAX_SESSIONS_PER_CALLER: "50",
      MCP_MAX_BODY_BYTES: String(MAX_BODY),
      // Everything that waits ends quickly, so a request that outlives HANG_MS is a hang.
      MCP_TOOL_TIMEOUT_MS: "3000",
      MCP_CLIENT_REQUEST_TIMEOUT_MS: "2000",
      MCP_STREAM_MAX_LIFETIME_MS: "2000",
      MCP_LISTEN_MAX_LIFETIME_MS: "2000",
      MCP_RESUME_GRACE_MS: "500",
      MCP_REQUEST_STATE_SECRET: "fuzz-only-request-state-secret-0123456789abcdef",
    },
  });
  // The data tools load the database client (tens of MB, once) and compile each query's plan on
  // first use: every data path runs once before any memory is measured.
  const warmUps: [string, Record<string, unknown>][] = [
    ["create_world", { name: "Warm", theme: "warm", description: "warm" }],
    ["list_worlds", { theme: "warm", nameContains: "w" }],
    ["search", { query: "warm" }],
    ["get_world", { worldId: "missing" }],
    ["fetch", { id: "world:missing" }],
    ["suggest_names", { style: "elvish", seed: "warm" }],
  ];
  // In parallel as the fuzz sends (CONCURRENCY): the database pool opens its connections now too.
  const parallel = Array.from({ length: CONCURRENCY }, (_, i) => warmUps[i % warmUps.length]!);
  await Promise.all(parallel.map(async ([name, args]) => {
    const warm = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta: meta2026({}) } }),
    });
    await warm.text();
  }));
  for (const [method, params] of [["prompts/get", { name: "develop-character", arguments: { world: "Warm" } }], ["completion/complete", { ref: { type: "ref/prompt", name: "develop-character" }, argument: { name: "world", value: "W" } }], ["resources/read", { uri: "world://missing" }]] as const) {
    const warm = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(method === "resources/read" ? { "mcp-name": "world://missing" } : method === "prompts/get" ? { "mcp-name": "develop-character" } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta2026({}) } }),
    });
    await warm.text();
  }
  // A few real sessions per revision, so requests can carry a valid Mcp-Session-Id.
  for (const version of VERSIONS.slice(0, 3)) {
    sessions[version] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${poolToken}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } }),
      });
      const id = r.headers.get("mcp-session-id");
      await r.text();
      if (id) sessions[version]!.push(id);
    }
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  if (issuerDir) rmSync(issuerDir, { recursive: true, force: true });
});

interface Case {
  method: string;
  headers: Record<string, string>;
  body: string | ArrayBuffer | undefined;
  label: string;
}

const jsonish = fc.jsonValue({ maxDepth: 4 });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.boolean(), fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }));
const method = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) });
const toolParams = fc.record(
  { name: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TOOLS) }, { weight: 1, arbitrary: fc.string({ maxLength: 130 }) }), arguments: fc.oneof(jsonish, fc.dictionary(fc.string({ maxLength: 10 }), jsonish, { maxKeys: 5 })) },
  { requiredKeys: ["name"] },
);

function meta2026(capabilities: unknown) {
  return { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities, "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" } };
}

/**
 * Strings an attack run sends (issue 19): LIKE wildcards and a trailing backslash, C0 control
 * characters, names every object inherits. None may reach PostgreSQL unescaped, pass validation
 * with a control character, or find a prototype's function.
 */
const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"];
const hostileText = fc.oneof(
  fc.constantFrom("%", "_", "\\", "a\\", "%_\\", "100%", "a_b", ...PROTOTYPE_NAMES),
  fc.string({ unit: fc.constantFrom("%", "_", "\\", "a", " ", "\u0000", "\u0007", "\u001b", "\t", "\n", "\u007f"), minLength: 1, maxLength: 12 }),
);
const hostileMessage = fc
  .record({ kind: fc.constantFrom("tool", "resource", "prompt", "method", "complete"), text: hostileText, tool: fc.constantFrom("search", "list_worlds", "create_world", "get_world", "fetch", "suggest_names", ...PROTOTYPE_NAMES), id: fc.integer() })
  .map(({ kind, text, tool, id }): Record<string, unknown> => {
    const args: Record<string, Record<string, unknown>> = {
      search: { query: text },
      list_worlds: { theme: text, nameContains: text },
      create_world: { name: text, theme: text, description: text },
      get_world: { worldId: text },
      fetch: { id: `world:${text}` },
      suggest_names: { style: "elvish", seed: text },
    };
    switch (kind) {
      case "tool":
        return { jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: Object.hasOwn(args, tool) ? args[tool] : { [text]: text } } };
      case "resource":
        return { jsonrpc: "2.0", id, method: "resources/read", params: { uri: id % 2 === 0 ? `worldcrafter://themes/${text}` : `world://${encodeURIComponent(text)}` } };
      case "prompt":
        return { jsonrpc: "2.0", id, method: "prompts/get", params: { name: "develop-character", arguments: { world: text, character: text } } };
      case "complete":
        return { jsonrpc: "2.0", id, method: "completion/complete", params: { ref: { type: "ref/prompt", name: "develop-character" }, argument: { name: id % 2 === 0 ? "world" : text, value: text } } };
      default:
        return { jsonrpc: "2.0", id, method: text, params: {} };
    }
  });

/**
 * The tasks extension (SEP-2663): task-augmented calls of the task-capable tools and the tasks
 * methods, with the extension declared, on ids real, made up and hostile, with answers of any shape.
 */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const taskMessage = fc
  .record({
    method: fc.constantFrom("tools/call", "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list", "subscriptions/listen"),
    taskId: fc.oneof(hostileText, fc.uuid(), fc.string({ maxLength: 300 }), jsonish),
    tool: fc.constantFrom("export_world", "draft_world_outline", "suggest_names"),
    args: fc.oneof(fc.constant({ name: "Fuzzmoor" }), fc.record({ worldId: hostileText }), jsonish),
    inputResponses: fc.oneof(jsonish, fc.dictionary(fc.string({ maxLength: 10 }), jsonish, { maxKeys: 4 })),
    id: fc.integer(),
  })
  .map(({ method, taskId, tool, args, inputResponses, id }): Record<string, unknown> => {
    const _meta = meta2026({ extensions: { [TASKS_EXTENSION]: {} }, elicitation: {} });
    if (method === "tools/call") return { jsonrpc: "2.0", id, method, params: { name: tool, arguments: args, task: { ttl: 1000 }, _meta } };
    if (method === "subscriptions/listen") return { jsonrpc: "2.0", id, method, params: { notifications: { taskIds: [taskId] }, _meta } };
    return { jsonrpc: "2.0", id, method, params: { taskId, ...(method === "tasks/update" ? { inputResponses } : {}), _meta } };
  });

/** A JSON-RPC message, mostly plausible, sometimes not. */
const plausibleMessage = fc
  .record({
    jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: fc.oneof(fc.constant("1.0"), fc.constant(undefined), fc.integer()) }),
    id,
    method,
    params: fc.oneof(jsonish, toolParams, fc.record({ protocolVersion: fc.constantFrom(...VERSIONS, "1999-01-01"), capabilities: jsonish, clientInfo: jsonish })),
    with2026Meta: fc.boolean(),
  })
  .map(({ with2026Meta, ...m }) => {
    const msg: Record<string, unknown> = { ...m };
    if (with2026Meta && typeof msg.params === "object" && msg.params !== null && !Array.isArray(msg.params)) {
      msg.params = { ...(msg.params as object), _meta: meta2026({}) };
    }
    if (msg.id === undefined) delete msg.id;
    return msg;
  });

const message = fc
  .record({ m: fc.oneof({ weight: 4, arbitrary: plausibleMessage }, { weight: 1, arbitrary: hostileMessage }, { weight: 1, arbitrary: taskMessage }), with2026Meta: fc.boolean() })
  .map(({ m, with2026Meta }) => (with2026Meta && typeof m.params === "object" && m.params !== null ? { ...m, params: { ...(m.params as object), _meta: meta2026({}) } } : m));

/** How the body is spoiled, if at all. */
const bodyShape = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ kind: "as-is" as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("truncated" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("batch" as const), size: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deep" as const), depth: fc.integer({ min: 50, max: 2000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "oversized" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("garbage" as const), bytes: fc.uint8Array({ maxLength: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("scalar" as const), value: jsonish }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty" as const }) },
);

const fuzzCase = fc
  .record({
    httpMethod: fc.oneof({ weight: 12, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: fc.constantFrom("GET", "DELETE", "PUT", "PATCH") }),
    version: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...VERSIONS) }, { weight: 1, arbitrary: fc.constantFrom("", "2024-11-05", "garbage") }),
    session: fc.constantFrom("valid", "valid", "none", "garbage"),
    contentType: fc.constantFrom("application/json", "application/json", "application/json; charset=utf-8", "text/plain", ""),
    accept: fc.constantFrom("application/json, text/event-stream", "application/json, text/event-stream", "application/json", "text/event-stream", "*/*", ""),
    // "joined": two Authorization headers as Fetch and `npm start` join them; never authenticated.
    auth: fc.constantFrom("none", "none", "none", "garbage", "valid", "valid", "joined"),
    methodHeader: fc.constantFrom("match", "match", "none", "wrong"),
    message,
    shape: bodyShape,
    extra: fc.array(message, { maxLength: 40 }),
  })
  .map((c): Case => {
    const headers: Record<string, string> = {};
    if (c.contentType) headers["content-type"] = c.contentType;
    if (c.accept) headers.accept = c.accept;
    if (c.version) headers["mcp-protocol-version"] = c.version;
    if (c.auth === "garbage") headers.authorization = "Bearer eyJhbGciOiJub25lIn0.e30.";
    if (c.auth === "valid") headers.authorization = `Bearer ${token}`;
    if (c.auth === "joined") headers.authorization = `Bearer ${token}, Bearer eyJhbGciOiJub25lIn0.e30.`;
    const pool = sessions[c.version] ?? sessions["2025-11-25"] ?? [];
    if (c.session === "valid" && pool.length) {
      headers["mcp-session-id"] = pool[Math.abs(JSON.stringify(c.message).length) % pool.length]!;
      // A session answers its owner only; garbage and joined credentials stay as generated.
      if (c.auth === "none" || c.auth === "valid") headers.authorization = `Bearer ${poolToken}`;
    }
    if (c.session === "garbage") headers["mcp-session-id"] = "not-a-session-\u00e9";
    if (c.version === "2026-07-28" && c.methodHeader !== "none") {
      // Headers mirror the body where a header can carry the value at all (fetch refuses control
      // characters and Unicode in header values; the server then answers the missing header).
      const headerSafe = (v: unknown): v is string => typeof v === "string" && /^[\x20-\x7e]+$/.test(v);
      const mirrored = c.methodHeader === "match" ? c.message.method : "tools/list";
      if (headerSafe(mirrored)) headers["mcp-method"] = mirrored;
      const params = (c.message.params ?? {}) as Record<string, unknown>;
      const target = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : params.taskId;
      if (c.methodHeader === "match" && headerSafe(target)) headers["mcp-name"] = target;
    }
    let body: string | ArrayBuffer | undefined;
    const text = JSON.stringify(c.message);
    switch (c.shape.kind) {
      case "as-is":
        body = text;
        break;
      case "truncated":
        body = text.slice(0, Math.floor(text.length * c.shape.at));
        break;
      case "batch":
        body = JSON.stringify([c.message, ...c.extra].slice(0, c.shape.size));
        break;
      case "deep":
        body = `${"[".repeat(c.shape.depth)}1${"]".repeat(c.shape.depth)}`;
        break;
      case "oversized":
        body = JSON.stringify({ ...c.message, padding: "x".repeat(MAX_BODY + 1024) });
        break;
      case "garbage":
        // Raw bytes: invalid UTF-8 included.
        body = new Uint8Array(c.shape.bytes).buffer;
        break;
      case "scalar":
        body = JSON.stringify(c.shape.value);
        break;
      case "empty":
        body = "";
        break;
    }
    if (c.httpMethod === "GET" || c.httpMethod === "DELETE") body = undefined;
    return { method: c.httpMethod, headers, body, label: `${c.httpMethod} ${c.version} ${c.shape.kind} ${String(c.message.method).slice(0, 30)}` };
  });

type Failure = { label: string; problem: string };

function isResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return false;
  if (!(typeof m.id === "string" || typeof m.id === "number" || m.id === null)) return false;
  const hasResult = "result" in m;
  const error = m.error as Record<string, unknown> | undefined;
  const hasError = error !== undefined && Number.isInteger(error.code) && typeof error.message === "string";
  return hasResult !== hasError && (hasResult ? typeof m.result === "object" && m.result !== null : true);
}

function isMessage(value: unknown): boolean {
  if (isResponse(value)) return true;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  return m.jsonrpc === "2.0" && typeof m.method === "string";
}

/** What an answer must never carry: a database invocation, a prototype's function (issue 19). */
const LEAKS = [/Invalid `prisma/, /\binvocation:/, /native code/, /\b2202[15]\b/];

/** Checks one answer; returns what is wrong with it, or undefined. */
function check(status: number, contentType: string, text: string): string | undefined {
  if (status >= 500) return `status ${status}: ${text.slice(0, 200)}`;
  const leak = LEAKS.find((l) => l.test(text));
  if (leak) return `answer leaks ${leak}: ${text.slice(0, 200)}`;
  if (text.length === 0) return status === 200 && contentType.includes("application/json") ? "empty JSON body" : undefined;
  if (contentType.includes("text/event-stream")) {
    for (const block of text.split("\n\n")) {
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (!data) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return `SSE data is not JSON: ${data.slice(0, 120)}`;
      }
      // Named events (seed 001's connected, tool-progress…) only on streams that ask (?events=named),
      // which no fuzz case does: MCP clients must see JSON-RPC messages only (issue 19).
      const named = block.split("\n").find((l) => l.startsWith("event:"))?.slice(6).trim();
      if (named && named !== "message") return `named SSE event "${named}" on a stream that did not ask for it`;
      if (!isMessage(parsed)) return `SSE data is not a JSON-RPC message: ${data.slice(0, 120)}`;
    }
    return undefined;
  }
  if (contentType.includes("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return `JSON body does not parse: ${text.slice(0, 120)}`;
    }
    const all = Array.isArray(parsed) ? parsed : [parsed];
    if (all.length === 0 || !all.every(isResponse)) return `not a JSON-RPC response: ${text.slice(0, 200)}`;
    return undefined;
  }
  return `unexpected content-type "${contentType}" with a body: ${text.slice(0, 120)}`;
}

async function send(c: Case): Promise<Failure | undefined> {
  const started = Date.now();
  try {
    const r = await fetch(`${server.url}/api/mcp`, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(HANG_MS) });
    const text = await r.text();
    const problem = check(r.status, r.headers.get("content-type") ?? "", text);
    return problem ? { label: c.label, problem } : undefined;
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    return { label: c.label, problem: name === "TimeoutError" ? `no complete answer within ${HANG_MS} ms` : `request failed after ${Date.now() - started} ms: ${String(error)}` };
  }
}

async function sendAll(cases: Case[]): Promise<{ failures: Failure[]; sent: number }> {
  const failures: Failure[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const failure = await send(c);
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { failures, sent: cases.length };
}

describe("fuzz", () => {
  it(`answers ${RUNS} generated requests well-formed, never 5xx, never hanging, in bounded memory`, async () => {
    console.log(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays this run), ${RUNS} cases`);
    const cases = fc.sample(fuzzCase, { numRuns: RUNS, seed: SEED });
    // Warm-up with the first tenth, then measure memory across the rest.
    const warm = Math.floor(cases.length / 10);
    const first = await sendAll(cases.slice(0, warm));
    const before = rssKb(server.pid);
    const rest = await sendAll(cases.slice(warm));
    const after = rssKb(server.pid);
    // The same traffic once more: a server that leaks keeps growing, a bounded one has levelled off.
    const replay = await sendAll(cases.slice(warm, warm * 3));
    const settled = rssKb(server.pid);
    const failures = [...first.failures, ...rest.failures, ...replay.failures];
    console.log(
      `fuzz: ${first.sent + rest.sent} requests (+${replay.sent} replayed), ${failures.length} failures; server RSS ${Math.round(before / 1024)} MB → ${Math.round(after / 1024)} MB → ${Math.round(settled / 1024)} MB after the replay`,
    );
    for (const f of failures.slice(0, 20)) console.log(`fuzz failure: ${f.label}: ${f.problem}`);
    expect(first.sent + rest.sent).toBe(RUNS);
    expect(failures.slice(0, 10)).toEqual([]);
    // Bounded: the measured part may not grow the server by more than 200 MB. (150 MB until issue
    // 19 added authenticated traffic: the data tools' working set — the database client's query
    // plans and pool under 16 concurrent requests — grows it by about 20 MB more, once: the
    // replay below stays flat.)
    expect(after - before).toBeLessThan(200 * 1024);
    // The replay's bound is 96 MB (48 MB until issue 21): a tools/call promotes ~15 MB to the old
    // generation per scavenge (bench/PROFILING.md round 8c), garbage that RSS keeps until the next
    // mark-compact, so 2000 replayed requests with task traffic measured +42 and +52 MB on two seeds.
    // Whether part of that is a slow leak is open (the closing note of issue 21 says so).
    expect(settled - after).toBeLessThan(96 * 1024);
    // And the server still answers normally.
    const pong = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta2026({}) } }),
    });
    expect(pong.status).toBe(200);
  }, 600_000);
});
