import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, sseMessages } from "../support/mcp-http";
import { SseReader, messageOf, waitFor } from "../support/sdk-client";
import { PRODUCT_TOOLS } from "../support/product-tools";

/**
 * MCP 2026-07-28 on the real server, over raw fetch: every request carries MCP-Protocol-Version,
 * Mcp-Method (and Mcp-Name where the method has a target) and the protocol version and client
 * capabilities in `params._meta`. Covers the header/_meta checks (one table, each row a request
 * and the status, JSON-RPC code and id it must be answered with), the shape of results,
 * per-request logging, multi-round-trip requests (requestState), subscriptions/listen, and
 * cancellation by closing the response stream. No answer in this era may carry Mcp-Session-Id.
 *
 * Most requests go to the fixture endpoint (/api/conformance/mcp, the conformance suite's tools);
 * a few go to the product endpoint /api/mcp (worldcrafter://guide).
 */

const V = "2026-07-28";
const Meta = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

type Id = string | number;
type Json = Record<string, unknown>;

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;
const mainUrl = () => `${inject("statefulUrl")}/api/mcp`;

const FIXTURE_SERVER = { name: "worldcrafter-conformance-fixtures", version: "0.1.0" };
const MAIN_SERVER = { name: "worldcrafter", version: "0.1.0" };

/** Capabilities a client that can answer every kind of question declares. */
const ALL_CAPS: Json = { elicitation: { form: {} }, sampling: {}, roots: {} };

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function meta2026(extra: Json = {}, capabilities: Json = {}): Json {
  return { [Meta.protocolVersion]: V, [Meta.clientCapabilities]: capabilities, ...extra };
}

/** A 2026-07-28 request; `_meta` is added unless `params` names its own (even as undefined). */
function req(id: Id, method: string, params: Json = {}): Json {
  return { jsonrpc: "2.0", id, method, params: Object.hasOwn(params, "_meta") ? params : { ...params, _meta: meta2026() } };
}

function callTool(id: Id, name: string, args: Json = {}, extra: Json = {}, capabilities: Json = {}): Json {
  // `extra` may bring its own _meta (logLevel, progressToken): it replaces the default one.
  return req(id, "tools/call", { name, arguments: args, _meta: meta2026({}, capabilities), ...extra });
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
/** The header form of a value that is not plain ASCII (basic/transports §request metadata headers). */
const sentinel = (s: string) => `=?base64?${b64(s)}?=`;

/** Where each method's target sits in params, mirrored in Mcp-Name. */
const NAME_FIELD: Readonly<Record<string, "name" | "uri">> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** The headers a well-behaved 2026-07-28 client sends for `body`. */
function defaultHeaders(body: unknown): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: JSON_AND_SSE, "mcp-protocol-version": V };
  if (isRecord(body) && typeof body.method === "string") {
    headers["mcp-method"] = body.method;
    const field = NAME_FIELD[body.method];
    const params = body.params;
    if (field && isRecord(params) && typeof params[field] === "string") headers["mcp-name"] = params[field];
  }
  return headers;
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  /** The JSON-RPC messages of the answer: the JSON body, or every SSE data payload. */
  messages: Json[];
}

function toReply(status: number, headers: Headers, text: string): Reply {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const sse = (headers.get("content-type") ?? "").startsWith("text/event-stream");
  const messages = (sse ? sseMessages(text) : json === undefined ? [] : [json]).filter(isRecord);
  return { status, headers, text, json: sse ? messages.find((m) => "id" in m && ("result" in m || "error" in m)) : json, messages };
}

/** POST (or another method) with the default 2026 headers; `null` in `headers` removes one. */
async function send(
  url: string,
  body: unknown,
  headers: Record<string, string | null> = {},
  method = "POST",
): Promise<Reply> {
  const merged: Record<string, string | null> = { ...defaultHeaders(body), ...headers };
  const sent: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) if (v !== null) sent[k] = v;
  const res = await fetch(url, {
    method,
    headers: sent,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const reply = toReply(res.status, res.headers, await res.text());
  // Sessions are gone in 2026-07-28 (SEP-2567): no answer mints or echoes one.
  expect(res.headers.get("mcp-session-id"), `no Mcp-Session-Id on ${method} ${JSON.stringify(body)?.slice(0, 120)}`).toBeNull();
  return reply;
}

/** POST over node:http, which keeps header names exactly as written (fetch lower-cases them). */
function sendNode(url: string, body: unknown, headers: Record<string, string | string[]>): Promise<Reply> {
  const payload = JSON.stringify(body);
  return new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { ...headers, "Content-Length": String(Buffer.byteLength(payload)) }, signal: AbortSignal.timeout(10_000) },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (d: Buffer) => parts.push(d));
        res.on("error", reject);
        res.on("end", () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          resolve(toReply(res.statusCode ?? 0, h, Buffer.concat(parts).toString("utf8")));
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

function errorOf(reply: Reply): ErrorObject {
  const json = reply.json;
  if (!isRecord(json) || !isRecord(json.error)) throw new Error(`not a JSON-RPC error: ${reply.status} ${reply.text.slice(0, 400)}`);
  const { code, message, data } = json.error;
  if (typeof code !== "number" || typeof message !== "string") throw new Error(`malformed error object: ${reply.text.slice(0, 400)}`);
  return { code, message, ...(data === undefined ? {} : { data }) };
}

function resultOf(reply: Reply): Json {
  const json = reply.json;
  if (!isRecord(json) || !isRecord(json.result)) throw new Error(`not a JSON-RPC result: ${reply.status} ${reply.text.slice(0, 400)}`);
  return json.result;
}

/** A clean 2026 error answer: the status, the code, and the request's id echoed. */
function expectError(reply: Reply, status: number, code: number, id: Id | null | undefined): ErrorObject {
  const context = `${reply.status} ${reply.text.slice(0, 400)}`;
  expect(reply.status, context).toBe(status);
  expect(reply.headers.get("content-type"), context).toMatch(/^application\/json/);
  const error = errorOf(reply);
  expect(error.code, context).toBe(code);
  expect(error.message.length, context).toBeGreaterThan(0);
  if (id !== undefined) expect((reply.json as Json).id, context).toStrictEqual(id);
  return error;
}

/** A 200 answer whose result is complete, with serverInfo in _meta; returns the result. */
function expectComplete(reply: Reply, id: Id, server = FIXTURE_SERVER): Json {
  const context = `${reply.status} ${reply.text.slice(0, 400)}`;
  expect(reply.status, context).toBe(200);
  expect((reply.json as Json | undefined)?.id, context).toStrictEqual(id);
  const result = resultOf(reply);
  expect(result.resultType, context).toBe("complete");
  expect(result._meta, context).toMatchObject({ [Meta.serverInfo]: server });
  return result;
}

function textOf(result: Json): string {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return content.map((b) => (isRecord(b) && b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
}

const uid = () => randomUUID().slice(0, 8);

// ── The table of header and _meta checks ─────────────────────────────────────────────────────

interface Case {
  name: string;
  /** Endpoint; the fixture endpoint when omitted. */
  url?: "fixture" | "main";
  /** HTTP method; POST when omitted. */
  method?: "GET" | "DELETE";
  body?: unknown;
  /** Overrides of the default headers; `null` removes one. */
  headers?: Record<string, string | null>;
  status: number;
  /** Expected JSON-RPC error code; null for a success or an empty answer. */
  code: number | null;
  /** Expected id of the answer; omitted: not checked. */
  id?: Id | null;
  check?: (reply: Reply) => void;
}

const listTools = (id: Id, meta?: Json | undefined) => ({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } });
const simpleText = (id: Id) => callTool(id, "test_simple_text");
const readStatic = (id: Id) => req(id, "resources/read", { uri: "test://static-text" });
const simplePrompt = (id: Id) => req(id, "prompts/get", { name: "test_simple_prompt" });
const headerEcho = (id: Id, args: Json) => callTool(id, "test_header_echo", args);

/** The tool or prompt name the error names (an unknown tool is -32602 with data.name). */
const expectUnknownTool = (name: string) => (r: Reply) => expect(errorOf(r).data).toEqual({ name });
const expectText = (text: string) => (r: Reply) => expect(textOf(resultOf(r))).toBe(text);

const CASES: readonly Case[] = [
  // ── MCP-Protocol-Version and _meta (checked in that order) ──────────────────────────────
  { name: "a well-formed tools/list (control)", body: listTools(100, meta2026()), status: 200, code: null, id: 100 },
  {
    name: "MCP-Protocol-Version header missing (2026 _meta in the body)",
    body: listTools(101, meta2026()),
    headers: { "mcp-protocol-version": null },
    status: 400,
    code: -32020,
    id: 101,
  },
  { name: "_meta missing", body: listTools(102, undefined), status: 400, code: -32602, id: 102 },
  { name: "params missing altogether", body: { jsonrpc: "2.0", id: "p-103", method: "tools/list" }, status: 400, code: -32602, id: "p-103" },
  {
    name: "_meta without protocolVersion",
    body: listTools(104, { [Meta.clientCapabilities]: {} }),
    status: 400,
    code: -32602,
    id: 104,
  },
  {
    name: "_meta without clientCapabilities",
    body: listTools(105, { [Meta.protocolVersion]: V }),
    status: 400,
    code: -32602,
    id: 105,
  },
  {
    name: "_meta clientCapabilities not an object",
    body: listTools(106, { [Meta.protocolVersion]: V, [Meta.clientCapabilities]: "all" }),
    status: 400,
    code: -32602,
    id: 106,
  },
  {
    name: "header 2026-07-28, _meta 2025-11-25",
    body: listTools(107, meta2026({ [Meta.protocolVersion]: "2025-11-25" })),
    status: 400,
    code: -32020,
    id: 107,
  },
  {
    name: "header 2025-11-25, _meta 2026-07-28 (the _meta selects this era)",
    body: listTools(108, meta2026()),
    headers: { "mcp-protocol-version": "2025-11-25" },
    status: 400,
    code: -32020,
    id: 108,
  },
  {
    name: "unsupported version v999.0.0 in header and _meta",
    body: listTools(109, meta2026({ [Meta.protocolVersion]: "v999.0.0" })),
    headers: { "mcp-protocol-version": "v999.0.0" },
    status: 400,
    code: -32022,
    id: 109,
    check: (r) => {
      const data = errorOf(r).data;
      expect(isRecord(data)).toBe(true);
      expect((data as Json).supported).toEqual(expect.arrayContaining([V, "2025-11-25"]));
      expect((data as Json).requested).toBe("v999.0.0");
    },
  },
  {
    // A legacy version in modern _meta: served only after initialize, so the versions to retry
    // with here are the modern ones alone; listing 2025-11-25 sent a client back with the same
    // request (outside audit).
    name: "a legacy version in header and _meta: -32022 listing only what this form serves",
    body: listTools(113, meta2026({ [Meta.protocolVersion]: "2025-11-25" })),
    headers: { "mcp-protocol-version": "2025-11-25" },
    status: 400,
    code: -32022,
    id: 113,
    check: (r) => {
      const error = errorOf(r);
      expect(error.message).toMatch(/2025-11-25 is served after an initialize handshake/);
      expect((error.data as Json).supported).toEqual([V]);
      expect((error.data as Json).requested).toBe("2025-11-25");
    },
  },
  {
    // The method headers are this revision's: a client of another need not send them, and the
    // -32022 telling it what to retry with comes first (outside audit, 2026-11-27).
    name: "unsupported version without Mcp-Method: still -32022",
    body: listTools(112, meta2026({ [Meta.protocolVersion]: "v999.0.0" })),
    headers: { "mcp-protocol-version": "v999.0.0", "mcp-method": null },
    status: 400,
    code: -32022,
    id: 112,
  },
  {
    // A client of another revision has no reason to carry this one's _meta: the header's version
    // is answered first (basic/transports §protocol version header: 400 and
    // UnsupportedProtocolVersionError listing the supported versions; outside audit).
    name: "unsupported version in the header, no _meta: -32022, not the _meta's -32602",
    body: listTools(114, undefined),
    headers: { "mcp-protocol-version": "2099-01-01" },
    status: 400,
    code: -32022,
    id: 114,
    check: (r) => {
      expect((errorOf(r).data as Json).supported).toEqual(expect.arrayContaining([V, "2025-11-25"]));
      expect((errorOf(r).data as Json).requested).toBe("2099-01-01");
    },
  },
  {
    name: "unsupported version in the header only (a mismatch comes first)",
    body: listTools(110, meta2026()),
    headers: { "mcp-protocol-version": "v999.0.0" },
    status: 400,
    code: -32020,
    id: 110,
  },
  {
    name: "clientInfo is optional, and accepted when sent",
    body: listTools(111, meta2026({ [Meta.clientInfo]: { name: "stateless-era-test", version: "1.0.0" } })),
    status: 200,
    code: null,
    id: 111,
  },

  // ── Mcp-Method ──────────────────────────────────────────────────────────────────────────
  { name: "Mcp-Method missing", body: listTools(120, meta2026()), headers: { "mcp-method": null }, status: 400, code: -32020, id: 120 },
  {
    name: "Mcp-Method names another method",
    body: listTools(121, meta2026()),
    headers: { "mcp-method": "prompts/list" },
    status: 400,
    code: -32020,
    id: 121,
  },
  {
    name: "Mcp-Method in another case (values are case-sensitive)",
    body: listTools(122, meta2026()),
    headers: { "mcp-method": "TOOLS/LIST" },
    status: 400,
    code: -32020,
    id: 122,
  },

  // ── Mcp-Name on tools/call ──────────────────────────────────────────────────────────────
  { name: "tools/call with Mcp-Name (control)", body: simpleText(130), status: 200, code: null, id: 130 },
  { name: "tools/call, Mcp-Name missing", body: simpleText(131), headers: { "mcp-name": null }, status: 400, code: -32020, id: 131 },
  {
    name: "tools/call, Mcp-Name names another tool",
    body: simpleText(132),
    headers: { "mcp-name": "test_error_handling" },
    status: 400,
    code: -32020,
    id: 132,
  },
  {
    name: "tools/call, Mcp-Name in Base64 sentinel form (accepted)",
    body: simpleText(133),
    headers: { "mcp-name": sentinel("test_simple_text") },
    status: 200,
    code: null,
    id: 133,
  },
  {
    name: "tools/call, Mcp-Name sentinel without its padding",
    body: simpleText(134),
    headers: { "mcp-name": `=?base64?${b64("test_simple_text").replace(/=+$/, "")}?=` },
    status: 400,
    code: -32020,
    id: 134,
  },
  {
    name: "tools/call, Mcp-Name sentinel with characters outside Base64",
    body: simpleText(135),
    headers: { "mcp-name": `=?base64?${b64("test_simple_text").replace("G", "*")}?=` },
    status: 400,
    code: -32020,
    id: 135,
  },
  {
    name: "tools/call, Mcp-Name sentinel of bytes that are not UTF-8",
    body: simpleText(136),
    headers: { "mcp-name": "=?base64?/w==?=" },
    status: 400,
    code: -32020,
    id: 136,
  },
  {
    // Two header texts must not name one value: "…dB==" decodes as "…dA==" does (outside audit).
    name: "tools/call, Mcp-Name sentinel in a non-canonical spelling (an unused bit set)",
    body: simpleText(142),
    headers: { "mcp-name": `=?base64?${b64("test_simple_text").replace(/A==$/, "B==")}?=` },
    status: 400,
    code: -32020,
    id: 142,
  },
  {
    name: "tools/call, Mcp-Name sentinel of another name",
    body: simpleText(137),
    headers: { "mcp-name": sentinel("test_error_handling") },
    status: 400,
    code: -32020,
    id: 137,
  },
  {
    // Only the prefix: a literal. It matches the body, so the headers pass; the tool is unknown.
    name: "tools/call, a literal that starts like a sentinel (accepted as a literal)",
    body: callTool(138, "=?base64?dGVzdA=="),
    status: 400,
    code: -32602,
    id: 138,
    check: expectUnknownTool("=?base64?dGVzdA=="),
  },
  {
    name: "tools/call, a literal that ends like a sentinel (accepted as a literal)",
    body: callTool(139, "dGVzdA==?="),
    status: 400,
    code: -32602,
    id: 139,
    check: expectUnknownTool("dGVzdA==?="),
  },
  {
    name: "tools/call, Mcp-Name with surrounding spaces (accepted)",
    body: simpleText(140),
    headers: { "mcp-name": "  test_simple_text  " },
    status: 200,
    code: null,
    id: 140,
  },
  {
    name: "tools/call, sentinel with surrounding spaces (accepted)",
    body: simpleText(141),
    headers: { "mcp-name": `  ${sentinel("test_simple_text")} ` },
    status: 200,
    code: null,
    id: 141,
  },

  // ── Mcp-Name on resources/read (the uri) and prompts/get ────────────────────────────────
  { name: "resources/read with Mcp-Name = uri (control)", body: readStatic(150), status: 200, code: null, id: 150 },
  { name: "resources/read, Mcp-Name missing", body: readStatic(151), headers: { "mcp-name": null }, status: 400, code: -32020, id: 151 },
  {
    name: "resources/read, Mcp-Name names another uri",
    body: readStatic(152),
    headers: { "mcp-name": "test://static-binary" },
    status: 400,
    code: -32020,
    id: 152,
  },
  {
    name: "resources/read, Mcp-Name in sentinel form (accepted)",
    body: readStatic(153),
    headers: { "mcp-name": sentinel("test://static-text") },
    status: 200,
    code: null,
    id: 153,
  },
  { name: "prompts/get with Mcp-Name (control)", body: simplePrompt(160), status: 200, code: null, id: 160 },
  { name: "prompts/get, Mcp-Name missing", body: simplePrompt(161), headers: { "mcp-name": null }, status: 400, code: -32020, id: 161 },
  {
    name: "prompts/get, Mcp-Name names another prompt",
    body: simplePrompt(162),
    headers: { "mcp-name": "test_prompt_with_arguments" },
    status: 400,
    code: -32020,
    id: 162,
  },
  {
    name: "prompts/get, Mcp-Name in sentinel form (accepted)",
    body: simplePrompt(163),
    headers: { "mcp-name": sentinel("test_simple_prompt") },
    status: 200,
    code: null,
    id: 163,
  },

  // ── Mcp-Param-* (x-mcp-header tool parameters) ──────────────────────────────────────────
  {
    name: "Mcp-Param-Region mirrors region (control)",
    body: headerEcho(170, { region: "eu-west" }),
    headers: { "mcp-param-region": "eu-west" },
    status: 200,
    code: null,
    id: 170,
    check: expectText("region=eu-west"),
  },
  {
    name: "Mcp-Param-Region missing while region is set",
    body: headerEcho(171, { region: "eu-west" }),
    status: 400,
    code: -32020,
    id: 171,
  },
  {
    name: "Mcp-Param-Region differs from region",
    body: headerEcho(172, { region: "eu-west" }),
    headers: { "mcp-param-region": "us-east" },
    status: 400,
    code: -32020,
    id: 172,
  },
  {
    name: "Mcp-Param-Region in sentinel form (accepted)",
    body: headerEcho(173, { region: "eu-west" }),
    headers: { "mcp-param-region": sentinel("eu-west") },
    status: 200,
    code: null,
    id: 173,
    check: expectText("region=eu-west"),
  },
  {
    name: "Mcp-Param-Region sentinel carrying non-ASCII (accepted)",
    body: headerEcho(174, { region: "Zürich" }),
    headers: { "mcp-param-region": sentinel("Zürich") },
    status: 200,
    code: null,
    id: 174,
    check: expectText("region=Zürich"),
  },
  {
    name: "Mcp-Param-Region sent while the argument is absent",
    body: headerEcho(175, {}),
    headers: { "mcp-param-region": "eu-west" },
    status: 400,
    code: -32020,
    id: 175,
  },
  {
    name: "Mcp-Param-Region with a bad sentinel",
    body: headerEcho(176, { region: "eu-west" }),
    headers: { "mcp-param-region": "=?base64?ZXUtd2VzdA?=" },
    status: 400,
    code: -32020,
    id: 176,
  },

  // ── logLevel ────────────────────────────────────────────────────────────────────────────
  {
    name: "_meta logLevel not a level",
    body: listTools(180, meta2026({ [Meta.logLevel]: "verbose" })),
    status: 400,
    code: -32602,
    id: 180,
  },
  {
    name: "_meta logLevel a number",
    body: listTools(181, meta2026({ [Meta.logLevel]: 3 })),
    status: 400,
    code: -32602,
    id: 181,
  },
  {
    name: "_meta logLevel emergency (valid)",
    body: listTools(182, meta2026({ [Meta.logLevel]: "emergency" })),
    status: 200,
    code: null,
    id: 182,
  },

  // ── Methods 2026-07-28 removed, with full 2026 headers and _meta: 404 + -32601 ──────────
  {
    name: "initialize",
    body: req(190, "initialize", { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } }),
    status: 404,
    code: -32601,
    id: 190,
  },
  { name: "ping", body: req(191, "ping"), status: 404, code: -32601, id: 191 },
  { name: "logging/setLevel", body: req(192, "logging/setLevel", { level: "debug" }), status: 404, code: -32601, id: 192 },
  { name: "resources/subscribe", body: req(193, "resources/subscribe", { uri: "test://watched-resource" }), status: 404, code: -32601, id: 193 },
  { name: "resources/unsubscribe", body: req(194, "resources/unsubscribe", { uri: "test://watched-resource" }), status: 404, code: -32601, id: 194 },
  { name: "unknown/method", body: req(195, "unknown/method"), status: 404, code: -32601, id: 195 },
  { name: "initialize on /api/mcp", url: "main", body: req(196, "initialize", { protocolVersion: V, capabilities: {} }), status: 404, code: -32601, id: 196 },

  // ── Message kinds and HTTP methods ──────────────────────────────────────────────────────
  {
    name: "a JSON-RPC batch",
    body: [listTools(200, meta2026()), listTools(201, meta2026())],
    headers: { "mcp-method": "tools/list" },
    status: 400,
    code: -32600,
    id: null,
  },
  { name: "a client response message", body: { jsonrpc: "2.0", id: "srv-1", result: {} }, status: 400, code: -32600 },
  {
    name: "a notification (accepted, never answered)",
    body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "nobody", _meta: meta2026() } },
    status: 202,
    code: null,
  },
  { name: "an unknown notification", body: { jsonrpc: "2.0", method: "notifications/whatever", params: { _meta: meta2026() } }, status: 202, code: null },
  {
    name: "a stray Mcp-Session-Id is ignored",
    body: listTools(205, meta2026()),
    headers: { "mcp-session-id": "00000000-0000-4000-8000-000000000000" },
    status: 200,
    code: null,
    id: 205,
  },
  {
    name: "server/discover from a foreign Origin (DNS-rebinding defence)",
    body: req(206, "server/discover"),
    headers: { origin: "http://evil.example.com" },
    status: 403,
    code: -32600,
  },
  // ── Duplicate member names: JSON.parse keeps the last, a proxy may keep the first, so the
  // headers could be checked against one request and another run (outside audit, 2026-11-27).
  {
    name: "two \"method\" members, Mcp-Method naming the last: refused, -32600",
    body: `{"jsonrpc":"2.0","id":210,"method":"tools/call","method":"tools/list","params":{"_meta":${JSON.stringify(meta2026())}}}`,
    headers: { "mcp-method": "tools/list" },
    status: 400,
    code: -32600,
    id: null,
  },
  {
    name: "two \"name\" members in params, Mcp-Name naming the last: refused",
    body: `{"jsonrpc":"2.0","id":211,"method":"tools/call","params":{"name":"test_header_echo","name":"test_simple_text","arguments":{},"_meta":${JSON.stringify(meta2026())}}}`,
    headers: { "mcp-method": "tools/call", "mcp-name": "test_simple_text" },
    status: 400,
    code: -32600,
    id: null,
    check: (r) => expect(errorOf(r).message).toContain('"name"'),
  },
  {
    name: "a duplicate spelled with an escape (m\\u0065thod) is one too",
    body: `{"jsonrpc":"2.0","id":212,"method":"tools/call","m\\u0065thod":"tools/list","params":{"_meta":${JSON.stringify(meta2026())}}}`,
    headers: { "mcp-method": "tools/list" },
    status: 400,
    code: -32600,
    id: null,
  },
  {
    name: "the same name in different objects is no duplicate (control)",
    body: `{"jsonrpc":"2.0","id":213,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"name":"x:\\"name\\":"},"_meta":${JSON.stringify(meta2026())}}}`,
    headers: { "mcp-method": "tools/call", "mcp-name": "test_simple_text" },
    status: 200,
    code: null,
    id: 213,
  },
  // A gateway routing on Mcp-Name must see every target a request runs (outside audit, 2026-11-27).
  {
    name: "an Mcp-Name on a method that names no target (tools/list): 400 -32020",
    body: listTools(214, meta2026()),
    headers: { "mcp-name": "test_simple_text" },
    status: 400,
    code: -32020,
    id: 214,
    check: (r) => expect(errorOf(r).message).toContain("names no target"),
  },
  {
    name: "an unknown method with an Mcp-Name is still 404 -32601 (the transport's answer for it), not a header mismatch",
    body: req(216, "tools/frobnicate", { name: "x" }),
    headers: { "mcp-name": "x" },
    status: 404,
    code: -32601,
    id: 216,
  },
  {
    name: "tools/batch is the session era's: 404 -32601 here, where each call's tool must travel in Mcp-Name",
    body: req(215, "tools/batch", { calls: [{ name: "test_simple_text", arguments: {} }] }),
    status: 404,
    code: -32601,
    id: 215,
  },
  { name: "GET with MCP-Protocol-Version: 2026-07-28", method: "GET", headers: { accept: "text/event-stream" }, status: 405, code: -32600, id: null },
  { name: "DELETE with MCP-Protocol-Version: 2026-07-28", method: "DELETE", status: 405, code: -32600, id: null },
  { name: "GET on /api/mcp with MCP-Protocol-Version: 2026-07-28", url: "main", method: "GET", headers: { accept: "text/event-stream" }, status: 405, code: -32600, id: null },
];

function expectReply(c: Case, reply: Reply): void {
  const context = `${c.name}: ${reply.status} ${reply.text.slice(0, 400)}`;
  expect(reply.status, context).toBe(c.status);
  if (c.status === 202) expect(reply.text, context).toBe("");
  if (c.code !== null) {
    expectError(reply, c.status, c.code, c.id);
  } else if (c.status === 200) {
    const json = reply.json;
    expect(isRecord(json) && "result" in json, context).toBe(true);
    if (c.id !== undefined) expect((json as Json).id, context).toStrictEqual(c.id);
    expect(resultOf(reply).resultType, context).toBe("complete");
  }
  c.check?.(reply);
}

describe("2026-07-28 header and _meta checks", () => {
  it("the table is distinct and broad", () => {
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    expect(CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const url = c.url === "main" ? mainUrl() : fixtureUrl();
    const reply = await send(url, c.body, c.headers, c.method);
    expectReply(c, reply);
  });

  it("header names are case-insensitive (sent as written, over node:http)", async () => {
    const body = headerEcho("case-1", { region: "eu-west" });
    const reply = await sendNode(fixtureUrl(), body, {
      "Content-Type": "application/json",
      ACCEPT: JSON_AND_SSE,
      "MCP-PROTOCOL-VERSION": V,
      "MCP-METHOD": "tools/call",
      "mcp-NAME": "test_header_echo",
      "MCP-PARAM-REGION": "eu-west",
    });
    expect(reply.headers.get("mcp-session-id")).toBeNull();
    expect(textOf(expectComplete(reply, "case-1"))).toBe("region=eu-west");
  });

  // basic/transports §value encoding: a value that is not visible ASCII travels as =?base64?…?=;
  // §server validation: a header with invalid characters MUST be rejected. node:http sends "é" as
  // the raw byte 0xE9 (fetch would refuse to), which the server reads as Latin-1.
  it("a raw non-ASCII byte in Mcp-Param-* or Mcp-Name is 400 -32020, even when it would match the body", async () => {
    const headers = (name: string, region?: string) => ({
      "content-type": "application/json",
      accept: JSON_AND_SSE,
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...(region === undefined ? {} : { "mcp-param-region": region }),
    });
    const param = await sendNode(fixtureUrl(), headerEcho("raw-1", { region: "\u00e9" }), headers("test_header_echo", "\u00e9"));
    expect(param.status).toBe(400);
    expect((param.json as { error: { code: number; message: string } }).error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Param-Region") });
    const name = await sendNode(fixtureUrl(), callTool("raw-2", "\u00e9"), headers("\u00e9"));
    expect(name.status).toBe(400);
    expect((name.json as { error: { code: number; message: string } }).error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Name") });
    // The same values Base64-encoded are accepted (the name is then simply an unknown tool).
    const encoded = await sendNode(fixtureUrl(), headerEcho("raw-3", { region: "\u00e9" }), headers("test_header_echo", sentinel("\u00e9")));
    expect(textOf(expectComplete(encoded, "raw-3"))).toBe("region=\u00e9");
  });

  // §server validation: header and body must agree, so that a gateway routing on the header acts
  // on what the server runs. Two Mcp-Param-Region lines "us" and "eu" read as "us, eu" once
  // joined, which this body's argument matches: the line count, not the joined text, decides.
  it("a mirrored header sent on two lines is 400 -32020, even when the joined value matches the body", async () => {
    const headers = (extra: Record<string, string | string[]>) => ({
      "content-type": "application/json",
      accept: JSON_AND_SSE,
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": "test_header_echo",
      ...extra,
    });
    const twice = await sendNode(fixtureUrl(), headerEcho("lines-1", { region: "us, eu" }), headers({ "mcp-param-region": ["us", "eu"] }));
    expect(twice.status).toBe(400);
    expect(errorOf(twice)).toMatchObject({ code: -32020, message: expect.stringContaining("mcp-param-region header is sent more than once") });
    const name = await sendNode(fixtureUrl(), headerEcho("lines-2", { region: "eu" }), headers({ "mcp-name": ["test_header_echo", "test_header_echo"], "mcp-param-region": "eu" }));
    expect(name.status).toBe(400);
    expect(errorOf(name).code).toBe(-32020);
    // One line carrying the same text is a single value, and matches.
    const once = await sendNode(fixtureUrl(), headerEcho("lines-3", { region: "us, eu" }), headers({ "mcp-param-region": "us, eu" }));
    expect(textOf(expectComplete(once, "lines-3"))).toBe("region=us, eu");
  });
});

// ── Results ──────────────────────────────────────────────────────────────────────────────────

describe("2026-07-28 results", () => {
  it("lists are complete, name the server in _meta and are publicly cacheable", async () => {
    const ttls: unknown[] = [];
    for (const [method, key] of [
      ["tools/list", "tools"],
      ["prompts/list", "prompts"],
      ["resources/list", "resources"],
      ["resources/templates/list", "resourceTemplates"],
    ] as const) {
      const id = `list-${method}`;
      const result = expectComplete(await send(fixtureUrl(), req(id, method)), id);
      expect(Array.isArray(result[key]), method).toBe(true);
      expect(result.cacheScope, method).toBe("public");
      expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0, `${method} ttlMs ${String(result.ttlMs)}`).toBe(true);
      ttls.push(result.ttlMs);
    }
    // One configured list TTL (MCP_LIST_TTL_MS) applies to every list.
    expect(new Set(ttls).size).toBe(1);
  });

  it("the same lists on /api/mcp name the product server", async () => {
    const result = expectComplete(await send(mainUrl(), req("main-tools", "tools/list")), "main-tools", MAIN_SERVER);
    expect((result.tools as Json[]).map((t) => t.name)).toEqual(PRODUCT_TOOLS);
    expect(result.cacheScope).toBe("public");
  });

  it("tools/list pages answered at once stay whole: each the same page, its own id (the page's bytes are shared, never copied)", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `page-${i}`);
    const replies = await Promise.all(ids.map((id) => send(mainUrl(), req(id, "tools/list"))));
    const pages = replies.map((reply, i) => {
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ jsonrpc: "2.0", id: ids[i] });
      return JSON.stringify((reply.json as Json).result);
    });
    expect(new Set(pages).size).toBe(1);
    expect((JSON.parse(pages[0] as string).tools as Json[]).map((t) => t.name)).toEqual(PRODUCT_TOOLS);
  });

  it("tools/call results are complete with serverInfo and carry no cache fields", async () => {
    const result = expectComplete(await send(fixtureUrl(), simpleText("call-1")), "call-1");
    expect(textOf(result)).toBe("This is a simple text response for testing.");
    expect(result).not.toHaveProperty("ttlMs");
    expect(result).not.toHaveProperty("cacheScope");
  });

  it("resources/read of worldcrafter://guide says what the guide declares (nothing: private, not cached)", async () => {
    const reply = await send(mainUrl(), req("guide-1", "resources/read", { uri: "worldcrafter://guide" }));
    const result = expectComplete(reply, "guide-1", MAIN_SERVER);
    expect(result.contents).toEqual([expect.objectContaining({ uri: "worldcrafter://guide", mimeType: "text/markdown" })]);
    // lib/worlds/resources/guide.ts defines no `cache`: reads default to private, ttlMs 0.
    expect(result.cacheScope).toBe("private");
    expect(result.ttlMs).toBe(0);
  });

  it("resource not found is 400 -32602 (no longer -32002) with data.uri", async () => {
    const main = await send(mainUrl(), req("nf-1", "resources/read", { uri: "worldcrafter://nope" }));
    const error = expectError(main, 400, -32602, "nf-1");
    expect(error.data).toEqual({ uri: "worldcrafter://nope" });
    expect(error.message).toContain("resources/list and resources/templates/list name what can be read");
    const fixture = await send(fixtureUrl(), req("nf-2", "resources/read", { uri: "test://missing" }));
    expect(expectError(fixture, 400, -32602, "nf-2").data).toEqual({ uri: "test://missing" });
  });

  it("server/discover: versions, capabilities with extensions, instructions, cache fields, serverInfo in _meta only", async () => {
    const result = expectComplete(await send(fixtureUrl(), req("disc-1", "server/discover")), "disc-1");
    expect(result.supportedVersions).toEqual(expect.arrayContaining([V, "2025-11-25"]));
    expect(isRecord(result.capabilities)).toBe(true);
    const capabilities = result.capabilities as Json;
    expect(isRecord(capabilities.extensions)).toBe(true);
    expect(capabilities).toMatchObject({ tools: expect.any(Object), resources: expect.any(Object), prompts: expect.any(Object) });
    expect(result.instructions).toBe("Fixture server for the MCP conformance suite and end-to-end tests.");
    expect(result.cacheScope).toBe("public");
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    // serverInfo moved to _meta (spec PR #3002): not in the body.
    expect(result).not.toHaveProperty("serverInfo");

    // -32022's data.supported names only versions discover lists.
    const refused = await send(fixtureUrl(), req("disc-2", "server/discover", { _meta: meta2026({ [Meta.protocolVersion]: "1900-01-01" }) }), {
      "mcp-protocol-version": "1900-01-01",
    });
    const data = expectError(refused, 400, -32022, "disc-2").data as Json;
    expect(data.requested).toBe("1900-01-01");
    expect(result.supportedVersions).toEqual(expect.arrayContaining(data.supported as unknown[]));
  });
});

// ── Logging per request ──────────────────────────────────────────────────────────────────────

describe("2026-07-28 logging (per-request logLevel)", () => {
  const logMessages = (reply: Reply) => reply.messages.filter((m) => m.method === "notifications/message");

  it("without a logLevel no notifications/message is sent, even when SSE is acceptable", async () => {
    const reply = await send(fixtureUrl(), callTool("log-none", "test_logging_tool"));
    expect(textOf(expectComplete(reply, "log-none"))).toBe("Logged");
    expect(logMessages(reply)).toEqual([]);
    // Nothing was emitted, so nothing upgraded the answer to a stream.
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("with logLevel debug both messages arrive on that request's SSE stream, before its result", async () => {
    const body = callTool("log-debug", "test_logging_tool", {}, { _meta: meta2026({ [Meta.logLevel]: "debug" }) });
    const reply = await send(fixtureUrl(), body);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    expect(textOf(expectComplete(reply, "log-debug"))).toBe("Logged");
    const logs = logMessages(reply);
    expect(logs.map((m) => (m.params as Json).level)).toEqual(["info", "debug"]);
    expect(logs.map((m) => (m.params as Json).data)).toEqual(["test_logging_tool started", "test_logging_tool finishing"]);
    for (const m of logs) expect((m.params as Json)._meta ?? {}).not.toHaveProperty(Meta.subscriptionId);
    // The response is the last message of the stream.
    expect(reply.messages.at(-1)).toMatchObject({ id: "log-debug", result: expect.any(Object) });
  });

  it("with logLevel info only the info message passes", async () => {
    const body = callTool("log-info", "test_logging_tool", {}, { _meta: meta2026({ [Meta.logLevel]: "info" }) });
    const reply = await send(fixtureUrl(), body);
    expect(logMessages(reply).map((m) => (m.params as Json).level)).toEqual(["info"]);
  });

  it("with logLevel debug but Accept: application/json only, the call still answers with plain JSON", async () => {
    const body = callTool("log-json", "test_logging_tool", {}, { _meta: meta2026({ [Meta.logLevel]: "debug" }) });
    const reply = await send(fixtureUrl(), body, { accept: "application/json" });
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(textOf(expectComplete(reply, "log-json"))).toBe("Logged");
  });
});

// ── Multi-round-trip requests ────────────────────────────────────────────────────────────────

const ELICIT = "test_input_required_result_elicitation";
const CAPS_ELICIT: Json = { elicitation: { form: {} } };
const accept = (content: Json) => ({ action: "accept", content });

function round(id: Id, tool: string, extra: Json = {}, args: Json = {}, capabilities: Json = CAPS_ELICIT): Json {
  return callTool(id, tool, args, extra, capabilities);
}

interface InputRequired {
  inputRequests: Record<string, { method: string; params: Json }>;
  requestState: string;
}

function expectInputRequired(reply: Reply, id: Id): InputRequired {
  const context = `${reply.status} ${reply.text.slice(0, 400)}`;
  expect(reply.status, context).toBe(200);
  expect((reply.json as Json | undefined)?.id, context).toStrictEqual(id);
  const result = resultOf(reply);
  expect(result.resultType, context).toBe("input_required");
  expect(result._meta, context).toMatchObject({ [Meta.serverInfo]: FIXTURE_SERVER });
  expect(isRecord(result.inputRequests), context).toBe(true);
  expect(typeof result.requestState, context).toBe("string");
  return { inputRequests: result.inputRequests as InputRequired["inputRequests"], requestState: result.requestState as string };
}

/** Round 1 of the elicitation fixture: its requestState. */
async function firstRound(tool = ELICIT, args: Json = {}): Promise<string> {
  const id = `r1-${uid()}`;
  return expectInputRequired(await send(fixtureUrl(), round(id, tool, {}, args)), id).requestState;
}

/** Replace the character at `index` with a different base64url character. */
function flipAt(value: string, index: number): string {
  return `${value.slice(0, index)}${value[index] === "A" ? "B" : "A"}${value.slice(index + 1)}`;
}

describe("2026-07-28 multi-round-trip requests", () => {
  it("R1 asks for user_name; R2 with the answer and requestState completes; replaying R2 is refused", async () => {
    const r1 = expectInputRequired(await send(fixtureUrl(), round("mrtr-1", ELICIT)), "mrtr-1");
    expect(Object.keys(r1.inputRequests)).toEqual(["user_name"]);
    const ask = r1.inputRequests.user_name;
    expect(ask?.method).toBe("elicitation/create");
    expect(ask?.params).toMatchObject({ message: "What is your name?", requestedSchema: { type: "object" } });
    // Input requests are bare {method, params}: no jsonrpc envelope, no id.
    expect(ask).not.toHaveProperty("jsonrpc");
    expect(ask).not.toHaveProperty("id");

    const r2body = round("mrtr-2", ELICIT, { inputResponses: { user_name: accept({ name: "Alice" }) }, requestState: r1.requestState });
    const r2 = await send(fixtureUrl(), r2body);
    expect(textOf(expectComplete(r2, "mrtr-2"))).toBe("Hello, Alice!");

    // The state is single-use: the very same retry again is refused.
    const replay = await send(fixtureUrl(), { ...r2body, id: "mrtr-3" });
    expect(expectError(replay, 400, -32602, "mrtr-3").message).toMatch(/requestState/);
  });

  it("an answer without a requestState answers nothing: no question was asked, so it is ignored and the question comes", async () => {
    // Every input_required this server sends carries a requestState; answers without one are to
    // questions never shown (a guessed key could skip a confirmation: outside audit, 2026-11-27).
    const reply = await send(fixtureUrl(), round("mrtr-alone", ELICIT, { inputResponses: { user_name: accept({ name: "Bob" }) } }));
    expect(Object.keys(expectInputRequired(reply, "mrtr-alone").inputRequests)).toEqual(["user_name"]);
  });

  it("tampered states are refused with -32602; the untouched state still works afterwards", async () => {
    const state = await firstRound();
    const dot = state.indexOf(".");
    expect(dot).toBeGreaterThan(0);
    const tampered: [string, string][] = [
      ["a character of the payload flipped", flipAt(state, Math.floor(dot / 2))],
      ["a character of the signature flipped", flipAt(state, dot + 1)],
      ["junk appended", `${state}AAAA`],
      // base64url decoding skips characters outside its alphabet: these decode to the same bytes.
      ["characters outside base64url appended", `${state}!!`],
      ["a character outside base64url inside the signature", `${state.slice(0, dot + 3)}*${state.slice(dot + 3)}`],
      // Latin-1 keeps a character's low byte only: U+0100 + c would read as c.
      ["a signature character raised by U+0100", `${state.slice(0, dot + 1)}${String.fromCharCode(state.charCodeAt(dot + 1) + 0x100)}${state.slice(dot + 2)}`],
      ["the signature removed", state.slice(0, dot + 1)],
      ["not a state at all", "hello"],
    ];
    for (const [what, forged] of tampered) {
      const id = `tamper-${uid()}`;
      const reply = await send(fixtureUrl(), round(id, ELICIT, { inputResponses: { user_name: accept({ name: "Mallory" }) }, requestState: forged }));
      expect(expectError(reply, 400, -32602, id).message, what).toMatch(/requestState/);
    }
    const ok = await send(fixtureUrl(), round("tamper-ok", ELICIT, { inputResponses: { user_name: accept({ name: "Alice" }) }, requestState: state }));
    expect(textOf(expectComplete(ok, "tamper-ok"))).toBe("Hello, Alice!");
  });

  it("a requestState is not a string: -32602", async () => {
    const reply = await send(fixtureUrl(), round("state-num", ELICIT, { requestState: 12345 }));
    expectError(reply, 400, -32602, "state-num");
  });

  it("a state issued for one tool is refused on another", async () => {
    const state = await firstRound(ELICIT);
    const reply = await send(
      fixtureUrl(),
      round("other-tool", "test_input_required_result_request_state", { inputResponses: { confirm: accept({ ok: true }) }, requestState: state }),
    );
    expect(expectError(reply, 400, -32602, "other-tool").message).toMatch(/requestState/);
  });

  it("a state issued for one set of arguments is refused with others (test_elicitation takes `message`)", async () => {
    const args = { message: "Who are you?" };
    const id1 = `args-${uid()}`;
    const r1 = expectInputRequired(await send(fixtureUrl(), round(id1, "test_elicitation", {}, args)), id1);
    const [key] = Object.keys(r1.inputRequests);
    expect(key).toBeDefined();
    const answers = { [key as string]: accept({ username: "alice", email: "a@example.com" }) };

    const other = await send(fixtureUrl(), round("args-2", "test_elicitation", { inputResponses: answers, requestState: r1.requestState }, { message: "Something else" }));
    expect(expectError(other, 400, -32602, "args-2").message).toMatch(/requestState/);

    // The refusal spent nothing: the same state with the original arguments completes.
    const same = await send(fixtureUrl(), round("args-3", "test_elicitation", { inputResponses: answers, requestState: r1.requestState }, args));
    expect(textOf(expectComplete(same, "args-3"))).toContain("action=accept");
  });

  it("two questions in sequence: step1, then step2, and round 3 sends only the step2 answer", async () => {
    const tool = "test_input_required_result_multi_round";
    const r1 = expectInputRequired(await send(fixtureUrl(), round("multi-1", tool)), "multi-1");
    expect(Object.keys(r1.inputRequests)).toEqual(["step1"]);

    const r2 = expectInputRequired(
      await send(fixtureUrl(), round("multi-2", tool, { inputResponses: { step1: accept({ name: "Alice" }) }, requestState: r1.requestState })),
      "multi-2",
    );
    expect(Object.keys(r2.inputRequests)).toEqual(["step2"]);
    expect(r2.requestState).not.toBe(r1.requestState);

    const r3 = await send(fixtureUrl(), round("multi-3", tool, { inputResponses: { step2: accept({ color: "teal" }) }, requestState: r2.requestState }));
    expect(textOf(expectComplete(r3, "multi-3"))).toBe("Alice likes teal");
  });

  it("a round's answers are to its own questions: step2 answered before it was asked is ignored, and asked", async () => {
    // The state seals the keys its round asked (request-state.ts `q`): a later round's question (a
    // confirmation, say) cannot be answered before the client was shown it (review, 2026-11-27).
    const tool = "test_input_required_result_multi_round";
    const r1 = expectInputRequired(await send(fixtureUrl(), round("early-1", tool)), "early-1");
    const early = { step1: accept({ name: "Alice" }), step2: accept({ color: "teal" }) };
    const r2 = expectInputRequired(await send(fixtureUrl(), round("early-2", tool, { inputResponses: early, requestState: r1.requestState })), "early-2");
    expect(Object.keys(r2.inputRequests)).toEqual(["step2"]);
    const r3 = await send(fixtureUrl(), round("early-3", tool, { inputResponses: { step2: accept({ color: "amber" }) }, requestState: r2.requestState }));
    expect(textOf(expectComplete(r3, "early-3"))).toBe("Alice likes amber");
  });

  it("an answer of the wrong shape is refused: {user_name: 12345} and inputResponses \"x\" / []", async () => {
    // mrtr §Error Handling: an answer that does not parse is a protocol error (-32602), not a question asked again forever.
    const wrongShape = await send(fixtureUrl(), round("shape-1", ELICIT, { inputResponses: { user_name: 12345 }, requestState: await firstRound() }));
    expectError(wrongShape, 400, -32602, "shape-1");
    const notObject = await send(fixtureUrl(), round("shape-2", ELICIT, { inputResponses: "x" }));
    expectError(notObject, 400, -32602, "shape-2");
    const array = await send(fixtureUrl(), round("shape-3", ELICIT, { inputResponses: [accept({ name: "A" })] }));
    expectError(array, 400, -32602, "shape-3");
  });

  // client/elicitation §security: servers SHOULD validate that the content matches the requested
  // schema. An accepted form whose content does not fit was handed to the tool as is (outside audit).
  it("an accepted answer whose content does not fit the form asked is refused: -32602 naming the field", async () => {
    for (const [id, content] of [["fit-1", { name: 12345 }], ["fit-2", {}], ["fit-3", { name: "bell\u0007" }]] as const) {
      const reply = await send(fixtureUrl(), round(id, ELICIT, { inputResponses: { user_name: accept(content) }, requestState: await firstRound() }));
      expect(expectError(reply, 400, -32602, id).message, JSON.stringify(content)).toMatch(/^The client's answer to elicitation\/create does not fit the requested schema: name: /);
    }
    // Declining carries no content to check.
    const declined = await send(fixtureUrl(), round("fit-4", ELICIT, { inputResponses: { user_name: { action: "decline" } }, requestState: await firstRound() }));
    expect(declined.status).toBe(200);
  });

  it("a retry without the answer asked for gets input_required again (unknown keys are ignored)", async () => {
    const state = await firstRound();
    const again = expectInputRequired(
      await send(fixtureUrl(), round("missing-1", ELICIT, { inputResponses: { not_asked: accept({ name: "X" }) }, requestState: state })),
      "missing-1",
    );
    expect(Object.keys(again.inputRequests)).toEqual(["user_name"]);
    const empty = expectInputRequired(await send(fixtureUrl(), round("missing-2", ELICIT, { inputResponses: {} })), "missing-2");
    expect(Object.keys(empty.inputRequests)).toEqual(["user_name"]);
  });

  it("three questions at once: one input_required lists them all; one retry answers them all", async () => {
    const tool = "test_input_required_result_multiple_inputs";
    const r1 = expectInputRequired(await send(fixtureUrl(), round("many-1", tool, {}, {}, ALL_CAPS)), "many-1");
    expect(Object.fromEntries(Object.entries(r1.inputRequests).map(([k, v]) => [k, v.method]))).toEqual({
      user_name: "elicitation/create",
      greeting: "sampling/createMessage",
      client_roots: "roots/list",
    });
    const inputResponses = {
      user_name: accept({ name: "Alice" }),
      greeting: { role: "assistant", content: { type: "text", text: "Hi" }, model: "test-model" },
      client_roots: { roots: [{ uri: "file:///tmp", name: "tmp" }] },
    };
    const r2 = await send(fixtureUrl(), round("many-2", tool, { inputResponses, requestState: r1.requestState }, {}, ALL_CAPS));
    expect(textOf(expectComplete(r2, "many-2"))).toBe("Alice: Hi (1 roots)");
  });

  // client/roots §Root: a root's uri MUST start with file://. Other answers were handed to the tool (outside review).
  it("a roots answer whose uri is not a file:// URI is refused: -32602", async () => {
    const tool = "test_input_required_result_multiple_inputs";
    for (const [n, uri] of ["../../etc/passwd", "https://evil.example/", "javascript:alert(1)"].entries()) {
      const r1 = expectInputRequired(await send(fixtureUrl(), round(`roots-${n}a`, tool, {}, {}, ALL_CAPS)), `roots-${n}a`);
      const inputResponses = {
        user_name: accept({ name: "Alice" }),
        greeting: { role: "assistant", content: { type: "text", text: "Hi" }, model: "test-model" },
        client_roots: { roots: [{ uri: "file:///tmp" }, { uri }] },
      };
      const reply = await send(fixtureUrl(), round(`roots-${n}b`, tool, { inputResponses, requestState: r1.requestState }, {}, ALL_CAPS));
      expect(expectError(reply, 400, -32602, `roots-${n}b`).message, uri).toMatch(/roots\/list/);
    }
  });

  it("asks only what the request's clientCapabilities declare", async () => {
    const tool = "test_input_required_result_capabilities";
    const sampling = expectInputRequired(await send(fixtureUrl(), round("caps-s", tool, {}, {}, { sampling: {} })), "caps-s");
    expect(Object.values(sampling.inputRequests).map((r) => r.method)).toEqual(["sampling/createMessage"]);
    const elicit = expectInputRequired(await send(fixtureUrl(), round("caps-e", tool, {}, {}, CAPS_ELICIT)), "caps-e");
    expect(Object.values(elicit.inputRequests).map((r) => r.method)).toEqual(["elicitation/create"]);
  });

  it("a capability or mode written as null or false declares nothing: it is not asked (outside audit)", async () => {
    const tool = "test_input_required_result_capabilities";
    for (const [n, capabilities] of [{ elicitation: { form: null, url: {} } }, { elicitation: { form: false } }, { elicitation: { form: {} }, roots: null }].entries()) {
      const id = `caps-null-${n}`;
      const reply = await send(fixtureUrl(), round(id, tool, {}, {}, capabilities));
      // The fixture asks for a form whenever `elicitation` is there at all: undeclared, that is
      // the missing-capability error (-32021), never a question the client cannot answer.
      if (n < 2) {
        expect(expectError(reply, 400, -32021, id).message, JSON.stringify(capabilities)).toMatch(/form mode/);
        continue;
      }
      const asked = expectInputRequired(reply, id);
      expect(Object.values(asked.inputRequests).map((r) => r.method)).toEqual(["elicitation/create"]);
    }
  });

  it("prompts/get may ask too; a tool's state is refused there", async () => {
    const prompt = "test_input_required_result_prompt";
    const ask = (id: Id, extra: Json = {}) =>
      req(id, "prompts/get", { name: prompt, ...extra, _meta: meta2026({}, CAPS_ELICIT) });
    const r1 = expectInputRequired(await send(fixtureUrl(), ask("prompt-1")), "prompt-1");
    expect(r1.inputRequests.user_context?.method).toBe("elicitation/create");

    const toolState = await firstRound();
    const refused = await send(fixtureUrl(), ask("prompt-2", { inputResponses: { user_context: accept({ context: "x" }) }, requestState: toolState }));
    expect(expectError(refused, 400, -32602, "prompt-2").message).toMatch(/requestState/);

    const r2 = await send(fixtureUrl(), ask("prompt-3", { inputResponses: { user_context: accept({ context: "a harbour town" }) }, requestState: r1.requestState }));
    const result = expectComplete(r2, "prompt-3");
    expect(result.messages).toEqual([{ role: "user", content: { type: "text", text: "Context: a harbour town" } }]);
  });

  it("inputResponses null is no answer: input_required again, never complete", async () => {
    const reply = await send(fixtureUrl(), round("null-1", ELICIT, { inputResponses: null }));
    expect(Object.keys(expectInputRequired(reply, "null-1").inputRequests)).toEqual(["user_name"]);
  });

  it("lists never answer input_required, whatever the params carry", async () => {
    const reply = await send(fixtureUrl(), req("list-mrtr", "tools/list", { inputResponses: { user_name: accept({ name: "A" }) }, requestState: "x.y" }));
    expectComplete(reply, "list-mrtr");
  });

  it("a question needing an undeclared capability is 400 -32021 with data.requiredCapabilities", async () => {
    const sampling = await send(fixtureUrl(), callTool("cap-1", "test_missing_capability", {}, {}, {}));
    const error = expectError(sampling, 400, -32021, "cap-1");
    expect(isRecord(error.data) && isRecord(error.data.requiredCapabilities)).toBe(true);
    expect((error.data as { requiredCapabilities: Json }).requiredCapabilities.sampling).toEqual({});

    const elicitation = await send(fixtureUrl(), callTool("cap-2", ELICIT, {}, {}, {}));
    expect(expectError(elicitation, 400, -32021, "cap-2").data).toEqual({ requiredCapabilities: { elicitation: {} } });

    // Declared, the same tool asks instead.
    expectInputRequired(await send(fixtureUrl(), callTool("cap-3", "test_missing_capability", {}, {}, ALL_CAPS)), "cap-3");
  });
});

// ── subscriptions/listen ─────────────────────────────────────────────────────────────────────

interface OpenListen {
  id: string;
  reader: SseReader;
  close(): Promise<void>;
}

async function openListen(notifications: Json): Promise<OpenListen> {
  const id = `listen-${uid()}`;
  const body = req(id, "subscriptions/listen", { notifications });
  const controller = new AbortController();
  const res = await fetch(fixtureUrl(), { method: "POST", headers: defaultHeaders(body), body: JSON.stringify(body), signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  expect(res.headers.get("mcp-session-id")).toBeNull();
  if (!res.body) throw new Error("listen answered without a body");
  const reader = new SseReader(res.body);
  return {
    id,
    reader,
    async close() {
      await reader.cancel();
      controller.abort();
    },
  };
}

function notificationMethod(event: { data: string }): string | undefined {
  const message = messageOf({ data: event.data });
  return typeof message?.method === "string" ? message.method : undefined;
}

describe("2026-07-28 subscriptions/listen", () => {
  it("acknowledges the agreed filter, then delivers only the notifications each stream opted into", async () => {
    const tools = await openListen({ toolsListChanged: true });
    const prompts = await openListen({ promptsListChanged: true });
    try {
      for (const [stream, agreed] of [
        [tools, { toolsListChanged: true }],
        [prompts, { promptsListChanged: true }],
      ] as const) {
        const ack = await stream.reader.next(5_000);
        if (!ack) throw new Error("the listen stream ended before its acknowledgement");
        expect(ack.id, "no SSE event ids in 2026-07-28").toBeUndefined();
        expect(messageOf(ack)).toEqual({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: { [Meta.subscriptionId]: stream.id }, notifications: agreed },
        });
      }

      // A change made by another request reaches the tools stream, tagged with its subscription.
      expectComplete(await send(fixtureUrl(), callTool("trigger-tools-1", "test_trigger_tool_change")), "trigger-tools-1");
      const changed = await tools.reader.until((e) => notificationMethod(e) === "notifications/tools/list_changed", 5_000);
      expect(messageOf(changed)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { [Meta.subscriptionId]: tools.id } },
      });

      // The prompts stream did not opt into tools: up to the prompts change, it sees no tools change.
      expectComplete(await send(fixtureUrl(), callTool("trigger-prompts-1", "test_trigger_prompt_change")), "trigger-prompts-1");
      const seenByPrompts: string[] = [];
      const promptChange = await prompts.reader.until((e) => {
        seenByPrompts.push(notificationMethod(e) ?? e.data);
        return notificationMethod(e) === "notifications/prompts/list_changed";
      }, 5_000);
      expect(seenByPrompts).not.toContain("notifications/tools/list_changed");
      expect((messageOf(promptChange)?.params as Json)._meta).toEqual({ [Meta.subscriptionId]: prompts.id });

      // …and the tools stream saw no prompts change before the next tools change.
      expectComplete(await send(fixtureUrl(), callTool("trigger-tools-2", "test_trigger_tool_change")), "trigger-tools-2");
      const seenByTools: string[] = [];
      await tools.reader.until((e) => {
        seenByTools.push(notificationMethod(e) ?? e.data);
        return notificationMethod(e) === "notifications/tools/list_changed";
      }, 5_000);
      expect(seenByTools).not.toContain("notifications/prompts/list_changed");
    } finally {
      await tools.close();
      await prompts.close();
    }
  });

  it("refuses a listen the client cannot read as a stream (406) and a malformed filter (400 -32602)", async () => {
    const body = req("listen-json", "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const json = await send(fixtureUrl(), body, { accept: "application/json" });
    expectError(json, 406, -32600, "listen-json");
    const bad = await send(fixtureUrl(), req("listen-bad", "subscriptions/listen", { notifications: "all" }));
    expectError(bad, 400, -32602, "listen-bad");
    // Text like any param: a control character or a lone surrogate in a URI is refused, as in a
    // 2025 session's resources/subscribe (outside probe, 2026-11-29: echoed in the acknowledgement).
    for (const uri of ["test://\u0000", "test://a\u001b[2J", "test://\ud800"]) {
      const refused = await send(fixtureUrl(), req("listen-text", "subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }));
      expectError(refused, 400, -32602, "listen-text");
    }
  });
});

// ── Cancellation by closing the response stream ──────────────────────────────────────────────

const CancellationList = (value: unknown): { requestId: Id; reason: string; at: number }[] => {
  if (!isRecord(value) || !Array.isArray(value.cancelled)) throw new Error(`unexpected test_cancellations result: ${JSON.stringify(value)}`);
  return value.cancelled as { requestId: Id; reason: string; at: number }[];
};

describe("2026-07-28 cancellation", () => {
  it("closing a streaming response cancels its handler at once (no grace period in this era)", async () => {
    const requestId = `h26-closed-${randomUUID()}`;
    const body = callTool(requestId, "test_slow", { ms: 10_000 }, { _meta: meta2026({ progressToken: requestId }) });
    const controller = new AbortController();
    const res = await fetch(fixtureUrl(), { method: "POST", headers: defaultHeaders(body), body: JSON.stringify(body), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    if (!res.body) throw new Error("no response body");
    const reader = new SseReader(res.body);
    // ms / 10 is the first progress step: ~1 s.
    const first = await reader.next(5_000);
    if (!first) throw new Error("the stream ended before the first progress event");
    expect(first.id, "no SSE event ids in 2026-07-28").toBeUndefined();
    expect(messageOf(first)).toMatchObject({ method: "notifications/progress", params: { progressToken: requestId, progress: 1, total: 10 } });

    await reader.cancel();
    controller.abort();
    const closedAt = Date.now();

    const entry = await waitFor(
      async () => {
        const reply = await send(fixtureUrl(), callTool(`cancellations-${uid()}`, "test_cancellations"));
        return CancellationList(resultOf(reply).structuredContent).find((c) => c.requestId === requestId);
      },
      { timeoutMs: 4_000, intervalMs: 100 },
    );
    expect(entry, "the handler kept running after its client closed the stream").toBeDefined();
    expect((entry?.at ?? Number.POSITIVE_INFINITY) - closedAt).toBeLessThan(1_000);
  });

  it("dropping a request before it streams (plain JSON pending) cancels its handler too", async () => {
    const requestId = `h26-dropped-${randomUUID()}`;
    const body = callTool(requestId, "test_slow", { ms: 10_000 });
    const controller = new AbortController();
    const pending = fetch(fixtureUrl(), { method: "POST", headers: defaultHeaders(body), body: JSON.stringify(body), signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    const closedAt = Date.now();
    await expect(pending).rejects.toThrow();

    const entry = await waitFor(
      async () => {
        const reply = await send(fixtureUrl(), callTool(`cancellations-${uid()}`, "test_cancellations"));
        return CancellationList(resultOf(reply).structuredContent).find((c) => c.requestId === requestId);
      },
      { timeoutMs: 4_000, intervalMs: 100 },
    );
    expect(entry, "the handler kept running after its client went away").toBeDefined();
    expect((entry?.at ?? Number.POSITIVE_INFINITY) - closedAt).toBeLessThan(1_000);
  });
});
