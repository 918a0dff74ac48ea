import { Agent, request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, openSession, sseMessages } from "../support/mcp-http";
import { invalidArgumentOf } from "../support/tool-errors";

/**
 * What every malformed or odd request gets from /api/mcp: one table, each row a raw HTTP request
 * and the status, JSON-RPC error code and id it must be answered with. Beyond the row's own
 * expectations every answer must come quickly, never be a 5xx, and every error body must be a
 * clean JSON-RPC error (no stack frames, no file paths). docs/errors.md mirrors this table.
 */

type Version = "2025-03-26" | "2025-06-18" | "2025-11-25";
type Id = string | number;

/** A body sent (over node:http) as `chunks` chunks of `chunkSize` bytes, with no Content-Length. */
class Chunked {
  constructor(
    readonly prefix: string,
    readonly chunks: number,
    readonly chunkSize: number,
  ) {}
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  ms: number;
}

interface Case {
  name: string;
  server?: "stateful" | "stateless";
  /** HTTP method; POST when omitted. */
  method?: string;
  /** Send the headers of an open session negotiated at this version (stateful server). */
  session?: Version;
  /** Extra headers; `null` removes a default (content-type, accept) or a session header. */
  headers?: Record<string, string | null>;
  /** A string is sent verbatim; a Uint8Array as bytes (no Content-Type is added); objects as JSON. */
  body?: string | Uint8Array<ArrayBuffer> | Chunked | object;
  /** Expected HTTP status (any of a list where more than one answer is clean). */
  status: number | readonly number[];
  /** Expected JSON-RPC error code; null when the answer is a success or has no body. */
  code: number | null;
  /** Expected id of the answer (null when the server cannot read it). Omitted: not checked. */
  id?: Id | null;
  /**
   * Send with node:http instead of fetch: fetch always adds an `Accept` (any type) when none is given, and node:http lets
   * the case pin one keep-alive connection for `followUp`.
   */
  via?: "node-http";
  /** After the answer, a ping on the same keep-alive connection must still be answered. */
  followUp?: boolean;
  /** Further checks on the reply. */
  check?: (reply: Reply) => void;
}

interface ErrorBody {
  jsonrpc: unknown;
  id: unknown;
  error: { code: unknown; message: unknown; data?: unknown };
}

const LATEST: Version = "2025-11-25";
const MAX_BODY = 1024 * 1024;
const ALLOW_ALL = ["DELETE", "GET", "HEAD", "OPTIONS", "POST"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrorBody(value: unknown): value is ErrorBody {
  return isRecord(value) && "error" in value && isRecord(value.error);
}

function errorOf(reply: Reply): ErrorBody["error"] {
  if (!isErrorBody(reply.json)) throw new Error(`not a JSON-RPC error body: ${reply.text.slice(0, 300)}`);
  return reply.json.error;
}

function resultOf(reply: Reply): Record<string, unknown> {
  const json = reply.json;
  if (!isRecord(json) || !isRecord(json.result)) throw new Error(`not a JSON-RPC result: ${reply.text.slice(0, 300)}`);
  return json.result;
}

/** The `path`s of the issues a -32602 lists in `data`. */
function issuePaths(reply: Reply): unknown[] {
  const data = errorOf(reply).data;
  expect(Array.isArray(data), "error.data lists the issues").toBe(true);
  return (data as unknown[]).map((issue) => (isRecord(issue) ? issue.path : undefined));
}

/** The message of an `invalid_argument` isError result (tool-error.ts's envelope), checked on the way. */
function invalidArgumentMessage(reply: Reply): string {
  const result = resultOf(reply);
  const error = invalidArgumentOf(result);
  expect(error, reply.text.slice(0, 300)).toBeDefined();
  expect(result.content).toEqual([{ type: "text", text: error?.message }]);
  return String(error?.message);
}

function allowOf(reply: Reply): string[] {
  return (reply.headers.get("allow") ?? "")
    .split(",")
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean)
    .sort();
}

function nested(depth: number): string {
  // The envelope object is level 1, params level 2; the rest are arrays.
  return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"deep":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`;
}

const ping = (id: unknown = 1) => ({ jsonrpc: "2.0", id, method: "ping" });
const call = (params: unknown, id: Id = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params });
const initialize = (params: Record<string, unknown>, id: Id = 1) => ({ jsonrpc: "2.0", id, method: "initialize", params });
const goodInitParams = { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "bad-input", version: "1" } };

const UNKNOWN_SESSION = "00000000-0000-4000-8000-000000000000";

const CASES: readonly Case[] = [
  // ── Bad JSON ────────────────────────────────────────────────────────────────────────────
  { name: "truncated JSON", session: LATEST, body: '{"jsonrpc":"2.0","id":1,"method":"pi', status: 400, code: -32700, id: null },
  { name: "trailing garbage after the object", session: LATEST, body: '{"jsonrpc":"2.0","id":1,"method":"ping"} xyz', status: 400, code: -32700, id: null },
  { name: "two objects back to back", session: LATEST, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}', status: 400, code: -32700, id: null },
  { name: "empty body", session: LATEST, body: "", status: 400, code: -32700, id: null },
  { name: "whitespace-only body", session: LATEST, body: " \n\t ", status: 400, code: -32700, id: null },
  { name: "single-quoted JSON5-style body", session: LATEST, body: "{'jsonrpc':'2.0','id':1,'method':'ping'}", status: 400, code: -32700, id: null },
  {
    // RFC 8259 §8.1: JSON text exchanged between systems MUST be UTF-8. Decoded leniently, the byte
    // would become U+FFFD and be stored as such.
    name: "a raw 0xFF byte inside a string (not UTF-8)",
    session: LATEST,
    headers: { "content-type": "application/json" },
    body: new Uint8Array(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"suggest_names","arguments":{"seed":"Bad'), Buffer.from([0xff]), Buffer.from('byte"}}}')])),
    status: 400,
    code: -32700,
    id: null,
  },
  {
    name: "a UTF-8 sequence cut short at the end of the body",
    session: LATEST,
    headers: { "content-type": "application/json" },
    body: new Uint8Array(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"} '), Buffer.from([0xe2, 0x82])])),
    status: 400,
    code: -32700,
    id: null,
  },
  { name: "body is just null", session: LATEST, body: "null", status: 400, code: -32600, id: null },
  { name: "body is a number", session: LATEST, body: "42", status: 400, code: -32600, id: null },
  { name: "body is a string", session: LATEST, body: '"ping"', status: 400, code: -32600, id: null },
  { name: "body is true", session: LATEST, body: "true", status: 400, code: -32600, id: null },

  // ── Wrong types in the envelope ─────────────────────────────────────────────────────────
  { name: 'jsonrpc "1.0"', session: LATEST, body: { jsonrpc: "1.0", id: 1, method: "ping" }, status: 400, code: -32600, id: 1 },
  { name: "jsonrpc missing", session: LATEST, body: { id: 1, method: "ping" }, status: 400, code: -32600, id: 1 },
  { name: "jsonrpc the number 2.0", session: LATEST, body: '{"jsonrpc":2.0,"id":1,"method":"ping"}', status: 400, code: -32600, id: 1 },
  { name: "method a number", session: LATEST, body: { jsonrpc: "2.0", id: 3, method: 42 }, status: 400, code: -32600, id: 3 },
  { name: "method empty", session: LATEST, body: { jsonrpc: "2.0", id: 4, method: "" }, status: 400, code: -32600, id: 4 },
  { name: "params an array", session: LATEST, body: { jsonrpc: "2.0", id: 5, method: "ping", params: [1, 2] }, status: 400, code: -32600, id: 5 },
  { name: "params a string", session: LATEST, body: { jsonrpc: "2.0", id: 6, method: "ping", params: "x" }, status: 400, code: -32600, id: 6 },
  { name: "params null", session: LATEST, body: { jsonrpc: "2.0", id: 7, method: "ping", params: null }, status: 400, code: -32600, id: 7 },
  { name: "id an object", session: LATEST, body: ping({ a: 1 }), status: 400, code: -32600, id: null },
  { name: "id a boolean", session: LATEST, body: ping(true), status: 400, code: -32600, id: null },
  { name: "id null with a method", session: LATEST, body: ping(null), status: 400, code: -32600, id: null },
  { name: "id a float 1.5", session: LATEST, body: ping(1.5), status: 400, code: -32600, id: null },
  { name: "id 2^53+10 (not a safe integer)", session: LATEST, body: '{"jsonrpc":"2.0","id":9007199254741002,"method":"ping"}', status: 400, code: -32600, id: null },
  { name: "id 1e400 (Infinity after parsing)", session: LATEST, body: '{"jsonrpc":"2.0","id":1e400,"method":"ping"}', status: 400, code: -32600, id: null },
  { name: "id a 300-character string", session: LATEST, body: ping("x".repeat(300)), status: 400, code: -32600, id: null },
  { name: "id a 256-character string (the limit, valid)", session: LATEST, body: ping("y".repeat(256)), status: 200, code: null, id: "y".repeat(256) },
  { name: "negative integer id (valid)", session: LATEST, body: ping(-5), status: 200, code: null, id: -5 },
  { name: "id 0 (valid)", session: LATEST, body: ping(0), status: 200, code: null, id: 0 },
  { name: "id 2^53-1 (largest safe integer, valid)", session: LATEST, body: ping(Number.MAX_SAFE_INTEGER), status: 200, code: null, id: Number.MAX_SAFE_INTEGER },
  { name: "empty-string id (valid)", session: LATEST, body: ping(""), status: 200, code: null, id: "" },
  // Two readers could answer two different ids (lib/jsonrpc/duplicate-members.ts): which one is unknowable.
  { name: "duplicate id key: refused, id null", session: LATEST, body: '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', status: 400, code: -32600, id: null },
  // Outside probe (2026-11-29): without Mcp-Session-Id these were told to send initialize first.
  { name: "initialize with id null, no session: refused for its id", body: `{"jsonrpc":"2.0","id":null,"method":"initialize","params":${JSON.stringify(goodInitParams)}}`, status: 400, code: -32600, id: null, check: (r) => expect(errorOf(r).message).toMatch(/id must be/) },
  { name: "ping with id null, no session: refused for its id", body: ping(null), status: 400, code: -32600, id: null, check: (r) => expect(errorOf(r).message).toMatch(/id must be/) },
  { name: "jsonrpc missing, no session: refused for its envelope, with its id", body: { id: 9, method: "ping" }, status: 400, code: -32600, id: 9, check: (r) => expect(errorOf(r).message).toMatch(/jsonrpc/) },

  // ── Missing fields ──────────────────────────────────────────────────────────────────────
  { name: "no method and no result/error (id present)", session: LATEST, body: { jsonrpc: "2.0", id: 8 }, status: 400, code: -32600, id: 8 },
  { name: "no method, no id", session: LATEST, body: { jsonrpc: "2.0" }, status: 400, code: -32600, id: null },
  { name: "empty object", session: LATEST, body: {}, status: 400, code: -32600, id: null },
  { name: "response with both result and error", session: LATEST, body: { jsonrpc: "2.0", id: "srv-x", result: {}, error: { code: 1, message: "m" } }, status: 400, code: -32600, id: "srv-x" },
  { name: "response whose result is not an object", session: LATEST, body: { jsonrpc: "2.0", id: "srv-y", result: 5 }, status: 400, code: -32600, id: "srv-y" },
  // JSON-RPC 2.0 §5: an error whose request id could not be read has id null; the 2025-11-25
  // schema lets it leave the id out. It answers no request we know: accepted, not routed.
  { name: "error response with id null", session: LATEST, body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }, status: 202, code: null },
  { name: "error response with id null at 2025-06-18", session: "2025-06-18", body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }, status: 202, code: null },
  { name: "error response without an id at 2025-11-25", session: LATEST, body: { jsonrpc: "2.0", error: { code: -32700, message: "x" } }, status: 202, code: null },
  {
    name: "error response without an id before 2025-11-25 (the schema requires it)",
    session: "2025-06-18",
    body: { jsonrpc: "2.0", error: { code: -32700, message: "x" } },
    status: 400,
    code: -32600,
    id: null,
    check: (r) => expect(errorOf(r).message).toMatch(/error response needs an "id"/),
  },
  { name: "response whose error lacks a code", session: LATEST, body: { jsonrpc: "2.0", id: "srv-z", error: { message: "m" } }, status: 400, code: -32600, id: "srv-z" },

  // ── Unknown methods (dispatched: the JSON-RPC call fails, the HTTP exchange succeeds) ───
  { name: "unknown method", session: LATEST, body: { jsonrpc: "2.0", id: 9, method: "tools/nope" }, status: 200, code: -32601, id: 9 },
  { name: "method toString (no prototype lookup)", session: LATEST, body: { jsonrpc: "2.0", id: 10, method: "toString" }, status: 200, code: -32601, id: 10 },
  { name: "method __proto__", session: LATEST, body: { jsonrpc: "2.0", id: 11, method: "__proto__" }, status: 200, code: -32601, id: 11 },
  { name: "method with a NUL byte", session: LATEST, body: { jsonrpc: "2.0", id: 12, method: "ping\u0000" }, status: 200, code: -32601, id: 12 },
  {
    name: "method name of 10 000 characters",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 38, method: "m".repeat(10_000) },
    status: 200,
    code: -32601,
    id: 38,
  },
  { name: "a notification name sent as a request", session: LATEST, body: { jsonrpc: "2.0", id: 13, method: "notifications/initialized" }, status: 200, code: -32601, id: 13 },

  // ── Invalid params ──────────────────────────────────────────────────────────────────────
  {
    name: "tools/call without name",
    session: LATEST,
    body: call({ arguments: {} }),
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => expect(issuePaths(r)).toContainEqual(["name"]),
  },
  {
    name: "tools/call with a numeric name",
    session: LATEST,
    body: call({ name: 7 }),
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => expect(issuePaths(r)).toContainEqual(["name"]),
  },
  {
    name: "tools/call with arguments an array",
    session: LATEST,
    body: call({ name: "suggest_names", arguments: ["elvish"] }),
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => expect(issuePaths(r)).toContainEqual(["arguments"]),
  },
  {
    // server/tools §error handling, 2025-11-25 (SEP-1303): an input validation error is a tool
    // execution error the model can correct, not a protocol error.
    name: "tools/call with arguments failing the tool's schema (2025-11-25: an isError result)",
    session: LATEST,
    body: call({ name: "suggest_names", arguments: { style: "no-such-style", count: 0 } }),
    status: 200,
    code: null,
    id: 1,
    check: (r) => {
      const message = invalidArgumentMessage(r);
      expect(message).toMatch(/^Invalid arguments for tool suggest_names: /);
      expect(message).toMatch(/\bstyle: /);
      expect(message).toMatch(/\bcount: /);
    },
  },
  {
    // 2025-06-18 and before list "invalid arguments" among the protocol errors.
    name: "tools/call with arguments failing the tool's schema (2025-06-18: -32602)",
    session: "2025-06-18",
    body: call({ name: "suggest_names", arguments: { style: "no-such-style", count: 0 } }),
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => {
      const paths = issuePaths(r);
      expect(paths).toContainEqual(["style"]);
      expect(paths).toContainEqual(["count"]);
    },
  },
  {
    // A lone surrogate has no UTF-8 form (RFC 8259 §8.2): stored, it would become U+FFFD.
    name: "tools/call with a lone surrogate in an argument (2025-11-25: an invalid_argument result naming it)",
    session: LATEST,
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"suggest_names","arguments":{"style":"elvish","seed":"Sur\\ud800rogate"}}}',
    status: 200,
    code: null,
    id: 1,
    check: (r) => expect(invalidArgumentMessage(r)).toMatch(/\bseed: Unpaired surrogates are not allowed/),
  },
  {
    name: "tools/call with a lone low surrogate in an argument key (2025-06-18: -32602 naming it)",
    session: "2025-06-18",
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"suggest_names","arguments":{"nested":{"k\\udc00":"v"}}}}',
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => expect(issuePaths(r)).toEqual([["nested", "k\udc00"]]),
  },
  {
    name: "tools/call with a surrogate pair (an emoji, accepted)",
    session: LATEST,
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"suggest_names","arguments":{"style":"elvish","seed":"\\ud83d\\ude00 ok"}}}',
    status: 200,
    code: null,
    id: 1,
    check: (r) => expect(resultOf(r).isError).toBeUndefined(),
  },
  {
    name: "tools/call of an unknown tool",
    session: LATEST,
    body: call({ name: "no_such_tool", arguments: {} }),
    status: 200,
    code: -32602,
    id: 1,
    check: (r) => expect(errorOf(r).data).toEqual({ name: "no_such_tool" }),
  },
  {
    name: "tools/call with a 900 KB string argument (cleanly refused)",
    session: LATEST,
    body: call({ name: "suggest_names", arguments: { style: "elvish", seed: "s".repeat(900 * 1024) } }),
    status: 200,
    code: null,
    id: 1,
    check: (r) => {
      expect(invalidArgumentMessage(r)).toMatch(/\bseed: /);
      expect(r.text.length, "the refusal does not echo the 900 KB value").toBeLessThan(10_000);
    },
  },
  {
    // basic §responses: an error response carries the request's id, a 401 of the one request a POST held too.
    name: "resources/read of a signed-in resource without a token (401, the request's id echoed)",
    session: LATEST,
    body: { jsonrpc: "2.0", id: "who-asks", method: "resources/read", params: { uri: "character://c-unknown" } },
    status: 401,
    code: -32001,
    id: "who-asks",
    check: (r) => expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /),
  },
  {
    name: "resources/read of an unknown uri",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 14, method: "resources/read", params: { uri: "worldcrafter://nope" } },
    status: 200,
    code: -32002,
    id: 14,
    check: (r) => expect(errorOf(r).data).toEqual({ uri: "worldcrafter://nope" }),
  },
  {
    name: "resources/read of a template uri with an unknown variable",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 15, method: "resources/read", params: { uri: "worldcrafter://themes/jazz" } },
    status: 200,
    code: -32002,
    id: 15,
  },
  {
    name: "resources/read without uri",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 16, method: "resources/read", params: {} },
    status: 200,
    code: -32602,
    id: 16,
    check: (r) => expect(issuePaths(r)).toContainEqual(["uri"]),
  },
  {
    name: "prompts/get of an unknown prompt",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 17, method: "prompts/get", params: { name: "no-such-prompt" } },
    status: 200,
    code: -32602,
    id: 17,
  },
  {
    name: "prompts/get with a non-string argument value",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 18, method: "prompts/get", params: { name: "start-fantasy-world", arguments: { theme: 5 } } },
    status: 200,
    code: -32602,
    id: 18,
  },
  {
    name: "logging/setLevel with a bad level",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 19, method: "logging/setLevel", params: { level: "verbose" } },
    status: 200,
    code: -32602,
    id: 19,
    check: (r) => expect(issuePaths(r)).toContainEqual(["level"]),
  },
  { name: "tools/list with a garbage cursor", session: LATEST, body: { jsonrpc: "2.0", id: 20, method: "tools/list", params: { cursor: "garbage!!" } }, status: 200, code: -32602, id: 20 },
  { name: "resources/list with a numeric cursor", session: LATEST, body: { jsonrpc: "2.0", id: 21, method: "resources/list", params: { cursor: 100 } }, status: 200, code: -32602, id: 21 },
  { name: "prompts/list with a well-formed cursor past the end", session: LATEST, body: { jsonrpc: "2.0", id: 22, method: "prompts/list", params: { cursor: Buffer.from("o:999").toString("base64url") } }, status: 200, code: -32602, id: 22 },
  // Only the exact text the server issues is a cursor: these decode leniently to offset 0, which it never issues.
  { name: "tools/list with a cursor for the first page (o:0, never issued)", session: LATEST, body: { jsonrpc: "2.0", id: 38, method: "tools/list", params: { cursor: Buffer.from("o:0").toString("base64url") } }, status: 200, code: -32602, id: 38 },
  { name: "resources/templates/list with a padded, garbled cursor (bz!ow====)", session: LATEST, body: { jsonrpc: "2.0", id: 39, method: "resources/templates/list", params: { cursor: "bz!ow====" } }, status: 200, code: -32602, id: 39 },
  { name: "_meta.progressToken an object", session: LATEST, body: { jsonrpc: "2.0", id: 23, method: "ping", params: { _meta: { progressToken: {} } } }, status: 200, code: -32602, id: 23 },
  // ProgressToken is ["string", "integer"] in every revision's schema.json: 1.5 is not echoed back.
  { name: "_meta.progressToken a fraction (2025 era)", session: LATEST, body: { jsonrpc: "2.0", id: 24, method: "ping", params: { _meta: { progressToken: 1.5 } } }, status: 200, code: -32602, id: 24, check: (r) => expect(issuePaths(r)).toContainEqual(["_meta", "progressToken"]) },
  { name: "_meta a string (2025 era)", session: LATEST, body: { jsonrpc: "2.0", id: 140, method: "tools/list", params: { _meta: "x" } }, status: 200, code: -32602, id: 140, check: (r) => expect(issuePaths(r)).toContainEqual(["_meta"]) },
  { name: "_meta an array on a tools/call (2025 era)", session: LATEST, body: { jsonrpc: "2.0", id: 141, method: "tools/call", params: { name: "suggest_names", arguments: { style: "elvish", count: 2 }, _meta: [] } }, status: 200, code: -32602, id: 141 },

  // ── Headers and content types ───────────────────────────────────────────────────────────
  { name: "Content-Type text/plain", session: LATEST, headers: { "content-type": "text/plain" }, body: ping(), status: 415, code: -32600, id: null },
  { name: "Content-Type missing", session: LATEST, headers: { "content-type": null }, body: new TextEncoder().encode(JSON.stringify(ping())), status: 415, code: -32600, id: null },
  { name: "Content-Type application/jsonx", session: LATEST, headers: { "content-type": "application/jsonx" }, body: ping(), status: 415, code: -32600, id: null },
  { name: "Content-Type APPLICATION/JSON; charset=utf-8 (accepted)", session: LATEST, headers: { "content-type": "APPLICATION/JSON; charset=utf-8" }, body: ping(24), status: 200, code: null, id: 24 },
  {
    // RFC 9110 §15.5.16: a content coding the server does not accept is 415; nothing is decoded.
    name: "Content-Encoding gzip with a gzip body",
    session: LATEST,
    headers: { "content-type": "application/json", "content-encoding": "gzip" },
    body: new Uint8Array(gzipSync(JSON.stringify(ping()))),
    status: 415,
    code: -32600,
    id: null,
    check: (r) => expect(r.headers.get("accept-encoding")).toBe("identity"),
  },
  {
    name: "Content-Encoding br with a plain body",
    session: LATEST,
    headers: { "content-encoding": "br" },
    body: ping(),
    status: 415,
    code: -32600,
    id: null,
    check: (r) => expect(r.headers.get("accept-encoding")).toBe("identity"),
  },
  { name: "Content-Encoding identity (accepted)", session: LATEST, headers: { "content-encoding": "identity" }, body: ping(39), status: 200, code: null, id: 39 },
  { name: "Accept text/html", session: LATEST, headers: { accept: "text/html" }, body: ping(), status: 406, code: -32600, id: null },
  {
    // RFC 9110 §12.5.1: the most specific reference wins; JSON's own q=0 is not undone by the wildcard.
    name: "Accept application/json;q=0 beside */*: the answer comes as SSE",
    session: LATEST,
    headers: { accept: "application/json;q=0, */*" },
    body: ping(40),
    status: 200,
    code: null,
    check: (r) => {
      expect(r.headers.get("content-type")).toBe("text/event-stream");
      expect(sseMessages(r.text)).toContainEqual({ jsonrpc: "2.0", id: 40, result: {} });
    },
  },
  {
    name: "Accept with both types at q=0 beside application/* and */*",
    session: LATEST,
    headers: { accept: "text/event-stream;q=0, application/*, application/json;q=0, */*" },
    body: ping(),
    status: 406,
    code: -32600,
    id: null,
  },
  { name: "Accept with both types at q=0", session: LATEST, headers: { accept: "application/json;q=0, text/event-stream;q=0" }, body: ping(), status: 406, code: -32600, id: null },
  { name: "Accept missing (anything goes: JSON answer)", via: "node-http", session: LATEST, headers: { accept: null }, body: ping(25), status: 200, code: null, id: 25 },
  {
    name: "Accept text/event-stream only: the answer comes as SSE",
    session: LATEST,
    headers: { accept: "text/event-stream" },
    body: ping(26),
    status: 200,
    code: null,
    check: (r) => {
      expect(r.headers.get("content-type")).toBe("text/event-stream");
      expect(sseMessages(r.text)).toContainEqual({ jsonrpc: "2.0", id: 26, result: {} });
    },
  },
  { name: "GET without Accept", via: "node-http", method: "GET", session: LATEST, headers: { accept: null }, status: 406, code: -32600, id: null },
  { name: "GET with Accept application/json", method: "GET", session: LATEST, headers: { accept: "application/json" }, status: 406, code: -32600, id: null },
  { name: "GET with Accept text/event-stream but no session", method: "GET", headers: { accept: "text/event-stream" }, status: 400, code: -32600, id: null },
  { name: "GET of an unknown session", method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": UNKNOWN_SESSION }, status: 404, code: -32600, id: null },
  {
    name: "GET resuming an unknown Last-Event-ID",
    method: "GET",
    session: LATEST,
    headers: { accept: "text/event-stream", "last-event-id": "no-such-stream:5" },
    // Not 404: that would tell the client its (valid) session is gone (basic/transports §session management).
    status: 400,
    code: -32600,
    id: null,
  },

  // ── HTTP methods ────────────────────────────────────────────────────────────────────────
  { name: "PUT", method: "PUT", session: LATEST, body: ping(), status: 405, code: -32600, id: null, check: (r) => expect(allowOf(r)).toEqual(ALLOW_ALL) },
  { name: "PATCH", method: "PATCH", session: LATEST, body: ping(), status: 405, code: -32600, id: null, check: (r) => expect(allowOf(r)).toEqual(ALLOW_ALL) },
  // RFC 9110 §9.3.2: HEAD answers as GET would, without the content.
  { name: "HEAD without a session: GET's 400, no body", method: "HEAD", headers: { accept: "text/event-stream" }, status: 400, code: null },
  { name: "HEAD of an unknown session: GET's 404, no body", method: "HEAD", headers: { accept: "text/event-stream", "mcp-session-id": UNKNOWN_SESSION }, status: 404, code: null },
  { name: "HEAD with Accept application/json: GET's 406", method: "HEAD", session: LATEST, headers: { accept: "application/json" }, status: 406, code: null },
  {
    name: "HEAD of an open session: GET's 200 and stream headers, no stream",
    method: "HEAD",
    session: LATEST,
    headers: { accept: "text/event-stream" },
    status: 200,
    code: null,
    check: (r) => {
      expect(r.headers.get("content-type")).toBe("text/event-stream");
      expect(r.headers.get("mcp-session-id")).toBe(sessions.get(LATEST)?.["mcp-session-id"]);
    },
  },
  { name: "OPTIONS", method: "OPTIONS", status: 204, code: null, check: (r) => expect(allowOf(r)).toEqual(ALLOW_ALL) },

  // ── Size and depth limits ───────────────────────────────────────────────────────────────
  {
    name: "body over 1 MiB (declared Content-Length)",
    session: LATEST,
    body: call({ name: "suggest_names", arguments: { seed: "x".repeat(MAX_BODY) } }),
    status: 413,
    code: -32600,
    id: null,
  },
  {
    name: "body over 1 MiB declared, then the connection is reused",
    via: "node-http",
    followUp: true,
    session: LATEST,
    body: call({ name: "suggest_names", arguments: { seed: "x".repeat(MAX_BODY) } }),
    status: 413,
    code: -32600,
    id: null,
  },
  {
    // RFC 9112 §9.3: a server that does not read the whole body must close the connection,
    // otherwise the rest of the body is read as the next request and that request hangs.
    name: "body over 1 MiB streamed (chunked, no Content-Length), then the connection is reused",
    via: "node-http",
    followUp: true,
    session: LATEST,
    body: new Chunked('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"', 20, 64 * 1024),
    status: 413,
    code: -32600,
    id: null,
  },
  { name: "JSON nested 100 levels deep", session: LATEST, body: nested(100), status: 400, code: -32600, id: null },
  // Two readers could take a repeated member for two requests (lib/jsonrpc/duplicate-members.ts).
  { name: "an object repeats a member name (two \"method\")", session: LATEST, body: '{"jsonrpc":"2.0","id":28,"method":"ping","method":"tools/list"}', status: 400, code: -32600, id: null },
  { name: "the same name in two objects is no repeat", session: LATEST, body: '{"jsonrpc":"2.0","id":29,"method":"ping","params":{"_meta":{"id":1}}}', status: 200, code: null, id: 29 },
  { name: "JSON nested exactly 64 levels (the limit, accepted)", session: LATEST, body: nested(64), status: 200, code: null, id: 1 },
  {
    name: "brackets inside strings do not count as depth",
    session: LATEST,
    body: { jsonrpc: "2.0", id: 27, method: "ping", params: { s: "[".repeat(200) } },
    status: 200,
    code: null,
    id: 27,
  },

  // ── Batches ─────────────────────────────────────────────────────────────────────────────
  { name: "empty batch []", session: "2025-03-26", body: [], status: 400, code: -32600, id: null },
  { name: "batch at 2025-11-25", session: LATEST, body: [ping(1), ping(2)], status: 400, code: -32600, id: null },
  { name: "batch at 2025-06-18", session: "2025-06-18", body: [ping(1), ping(2)], status: 400, code: -32600, id: null },
  {
    name: "batch of 33 at 2025-03-26 (over the limit of 32)",
    session: "2025-03-26",
    body: Array.from({ length: 33 }, (_, i) => ping(i)),
    status: 400,
    code: -32600,
    id: null,
    check: (r) => expect(errorOf(r).data).toEqual({ maxBatch: 32 }),
  },
  {
    name: "batch of 32 at 2025-03-26 (the limit, accepted)",
    session: "2025-03-26",
    body: Array.from({ length: 32 }, (_, i) => ping(i)),
    status: 200,
    code: null,
    check: (r) => expect(Array.isArray(r.json) && r.json.length).toBe(32),
  },
  {
    name: "batch [1] at 2025-03-26: one error per bad element",
    session: "2025-03-26",
    body: [1],
    status: 200,
    code: null,
    check: (r) => {
      expect(Array.isArray(r.json)).toBe(true);
      const [only] = r.json as unknown[];
      expect(only).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    },
  },
  {
    name: "mixed batch at 2025-03-26: good, bad and unknown answered side by side",
    session: "2025-03-26",
    body: [ping("a"), { jsonrpc: "1.0", id: "b", method: "ping" }, { jsonrpc: "2.0", id: "c", method: "nope" }, { jsonrpc: "2.0", method: "notifications/whatever" }],
    status: 200,
    code: null,
    check: (r) => {
      const items = r.json as unknown[];
      expect(items).toHaveLength(3);
      expect(items).toContainEqual({ jsonrpc: "2.0", id: "a", result: {} });
      expect(items).toContainEqual(expect.objectContaining({ id: "b", error: expect.objectContaining({ code: -32600 }) }));
      expect(items).toContainEqual(expect.objectContaining({ id: "c", error: expect.objectContaining({ code: -32601 }) }));
    },
  },
  // Outside probe, 2026-11-29: alone, such a request is refused -32020; batched it ran under the session's rules.
  {
    name: "a batched request naming 2026-07-28 in its _meta at 2025-03-26: the lone request's -32020, its neighbours answered",
    session: "2025-03-26",
    body: [ping("plain"), { jsonrpc: "2.0", id: "modern", method: "ping", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }],
    status: 200,
    code: null,
    check: (r) => {
      const items = r.json as unknown[];
      expect(items).toHaveLength(2);
      expect(items).toContainEqual({ jsonrpc: "2.0", id: "plain", result: {} });
      expect(items).toContainEqual(expect.objectContaining({ id: "modern", error: expect.objectContaining({ code: -32020, message: expect.stringMatching(/"2026-07-28".*2025-03-26/) }) }));
    },
  },
  {
    name: "a batched request naming the session's own version in its _meta at 2025-03-26: answered",
    session: "2025-03-26",
    body: [{ jsonrpc: "2.0", id: "same", method: "ping", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2025-03-26" } } }],
    status: 200,
    code: null,
    check: (r) => expect(r.json).toEqual([{ jsonrpc: "2.0", id: "same", result: {} }]),
  },
  { name: "batch of notifications only at 2025-03-26", session: "2025-03-26", body: [{ jsonrpc: "2.0", method: "notifications/a" }, { jsonrpc: "2.0", method: "notifications/b" }], status: 202, code: null },
  { name: "initialize inside a batch", body: [initialize(goodInitParams)], status: 400, code: -32600, id: null },

  // ── Sessions and lifecycle ──────────────────────────────────────────────────────────────
  { name: "call before initialize (no Mcp-Session-Id)", body: ping(), status: 400, code: -32600, id: 1 },
  { name: "empty Mcp-Session-Id", headers: { "mcp-session-id": "" }, body: ping(), status: 400, code: -32600, id: 1 },
  { name: "unknown session id", headers: { "mcp-session-id": UNKNOWN_SESSION }, body: ping(), status: 404, code: -32600, id: 1 },
  { name: "session id of 10 000 characters", headers: { "mcp-session-id": "s".repeat(10_000) }, body: ping(), status: [400, 404], code: -32600, id: 1 },
  {
    // Node's HTTP parser refuses header blocks over 16 KB before the route runs: no JSON-RPC body.
    name: "headers over 16 KB (a 20 000-character session id)",
    headers: { "mcp-session-id": "s".repeat(20_000) },
    body: ping(),
    status: [400, 404, 431],
    code: null,
  },
  { name: "DELETE without a session", method: "DELETE", status: 400, code: -32600, id: null },
  { name: "DELETE of an unknown session", method: "DELETE", headers: { "mcp-session-id": UNKNOWN_SESSION }, status: 404, code: -32600, id: null },
  // basic/transports §protocol version header: DELETE is checked as GET and POST are (the session lives on).
  { name: "DELETE with MCP-Protocol-Version 1999-01-01", method: "DELETE", session: LATEST, headers: { "mcp-protocol-version": "1999-01-01" }, status: 400, code: -32600, id: null },
  { name: "DELETE with MCP-Protocol-Version banana", method: "DELETE", session: LATEST, headers: { "mcp-protocol-version": "banana" }, status: 400, code: -32600, id: null },
  { name: "DELETE with a supported MCP-Protocol-Version not the session's", method: "DELETE", session: LATEST, headers: { "mcp-protocol-version": "2025-06-18" }, status: 400, code: -32600, id: null },
  {
    name: "unsupported MCP-Protocol-Version header",
    session: LATEST,
    headers: { "mcp-protocol-version": "1999-01-01" },
    body: ping(),
    status: 400,
    code: -32600,
    id: 1,
    check: (r) => expect(errorOf(r).data).toEqual({ supported: ["2025-11-25", "2025-06-18", "2025-03-26"] }),
  },
  {
    name: "empty MCP-Protocol-Version header",
    session: LATEST,
    headers: { "mcp-protocol-version": "" },
    body: ping(),
    status: 400,
    code: -32600,
    id: 1,
    check: (r) => expect(isRecord(errorOf(r).data) && (errorOf(r).data as Record<string, unknown>).supported).toBeTruthy(),
  },
  // The refusal of a POST's one request carries its id (basic §responses), from the session era's checks on.
  { name: "MCP-Protocol-Version differing from the session's", session: "2025-06-18", headers: { "mcp-protocol-version": LATEST }, body: ping(), status: 400, code: -32600, id: 1 },
  { name: "MCP-Protocol-Version header missing (the session's version applies)", session: "2025-06-18", headers: { "mcp-protocol-version": null }, body: ping(28), status: 200, code: null, id: 28 },
  {
    name: "initialize without clientInfo",
    body: initialize({ protocolVersion: LATEST, capabilities: {} }, 29),
    status: 400,
    code: -32602,
    id: 29,
    check: (r) => expect(issuePaths(r)).toContainEqual(["clientInfo"]),
  },
  {
    name: "initialize with Accept text/event-stream only: the answer comes as SSE",
    headers: { accept: "text/event-stream" },
    body: initialize(goodInitParams, 41),
    status: 200,
    code: null,
    check: (r) => {
      expect(r.headers.get("content-type")).toBe("text/event-stream");
      expect(r.headers.get("mcp-session-id")).toBeTruthy();
      expect(sseMessages(r.text)).toEqual([expect.objectContaining({ jsonrpc: "2.0", id: 41, result: expect.objectContaining({ protocolVersion: LATEST }) })]);
    },
  },
  { name: "initialize without params", body: { jsonrpc: "2.0", id: 30, method: "initialize" }, status: 400, code: -32602, id: 30 },
  // Its id was readable, so the refusal answers it (JSON-RPC 2.0 §5), as the session lookup's do.
  { name: "initialize carrying an Mcp-Session-Id", session: LATEST, body: initialize(goodInitParams), status: 400, code: -32600, id: 1 },
  { name: "initialize sent as a notification", session: LATEST, body: { jsonrpc: "2.0", method: "initialize", params: goodInitParams }, status: 202, code: null },
  { name: "notification with an unknown method", session: LATEST, body: { jsonrpc: "2.0", method: "notifications/does-not-exist" }, status: 202, code: null },
  { name: "notifications/cancelled for a request that is not running", session: LATEST, body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "never-sent" } }, status: 202, code: null },
  { name: "client result for an unknown server request id", session: LATEST, body: { jsonrpc: "2.0", id: "srv-unknown", result: {} }, status: 202, code: null },
  { name: "client error for an unknown server request id", session: LATEST, body: { jsonrpc: "2.0", id: 31, error: { code: -1, message: "no" } }, status: 202, code: null },

  // ── Origin (DNS-rebinding defence) ──────────────────────────────────────────────────────
  {
    name: "disallowed Origin https://evil.example",
    session: LATEST,
    headers: { origin: "https://evil.example" },
    body: ping(),
    status: 403,
    code: -32600,
    id: null,
  },
  { name: "Origin null (sandboxed iframe)", session: LATEST, headers: { origin: "null" }, body: ping(), status: 403, code: -32600, id: null },
  { name: "disallowed Origin on OPTIONS", method: "OPTIONS", headers: { origin: "https://evil.example" }, status: 403, code: -32600, id: null },
  { name: "allowed Origin https://claude.ai", session: LATEST, headers: { origin: "https://claude.ai" }, body: ping(32), status: 200, code: null, id: 32 },
  { name: "loopback Origin on another port", session: LATEST, headers: { origin: "http://localhost:5173" }, body: ping(33), status: 200, code: null, id: 33 },

  // ── The stateless server ────────────────────────────────────────────────────────────────
  {
    name: "stateless: GET",
    server: "stateless",
    method: "GET",
    headers: { accept: "text/event-stream" },
    status: 405,
    code: -32600,
    id: null,
    // RFC 9110 §15.5.6: Allow lists the methods the resource supports, so not the refused one.
    check: (r) => expect(allowOf(r)).not.toContain("GET"),
  },
  {
    name: "stateless: HEAD (as GET: 405)",
    server: "stateless",
    method: "HEAD",
    headers: { accept: "text/event-stream" },
    status: 405,
    code: null,
    check: (r) => expect(allowOf(r)).toEqual(["OPTIONS", "POST"]),
  },
  {
    name: "stateless: DELETE",
    server: "stateless",
    method: "DELETE",
    status: 405,
    code: -32600,
    id: null,
    check: (r) => expect(allowOf(r)).not.toContain("DELETE"),
  },
  {
    name: "stateless: tools/list without a session",
    server: "stateless",
    headers: { "mcp-protocol-version": LATEST },
    body: { jsonrpc: "2.0", id: 34, method: "tools/list" },
    status: 200,
    code: null,
    id: 34,
    check: (r) => expect(Array.isArray(resultOf(r).tools)).toBe(true),
  },
  {
    name: "stateless: initialize mints no session",
    server: "stateless",
    body: initialize(goodInitParams, 35),
    status: 200,
    code: null,
    id: 35,
    check: (r) => expect(r.headers.get("mcp-session-id")).toBeNull(),
  },
  { name: "stateless: a stray Mcp-Session-Id is ignored", server: "stateless", headers: { "mcp-session-id": UNKNOWN_SESSION, "mcp-protocol-version": LATEST }, body: ping(36), status: 200, code: null, id: 36 },
  { name: "stateless: unsupported MCP-Protocol-Version", server: "stateless", headers: { "mcp-protocol-version": "2024-11-05" }, body: ping(), status: 400, code: -32600, id: 1 },
  { name: "stateless: batch at 2025-11-25", server: "stateless", headers: { "mcp-protocol-version": LATEST }, body: [ping(1), ping(2)], status: 400, code: -32600, id: null },
  { name: "stateless: resources/subscribe needs a session", server: "stateless", headers: { "mcp-protocol-version": LATEST }, body: { jsonrpc: "2.0", id: 37, method: "resources/subscribe", params: { uri: "worldcrafter://guide" } }, status: 200, code: -32600, id: 37 },
  { name: "stateless: bad JSON", server: "stateless", body: "{", status: 400, code: -32700, id: null },
];

/** Stack frames ("    at fn (file:1:2)") or source locations must never reach the wire. */
const STACK_FRAME = /\bat\s+(?:async\s+)?[\w$.<>[\] ]*\(?\S+:\d+:\d+\)?|\n\s+at\s/;
const SOURCE_PATH = /(\/|\\)[\w.@-]+\.(ts|tsx|js|mjs|cjs)\b|node_modules|webpack|turbopack|\[project\]/i;

function assertCleanError(value: unknown, serverRoot: string): void {
  expect(isErrorBody(value), `a JSON-RPC error object: ${JSON.stringify(value)?.slice(0, 300)}`).toBe(true);
  const body = value as ErrorBody;
  expect(body.jsonrpc).toBe("2.0");
  expect(typeof body.error.code).toBe("number");
  expect(Number.isInteger(body.error.code)).toBe(true);
  expect(typeof body.error.message).toBe("string");
  const message = body.error.message as string;
  expect(message.length).toBeGreaterThan(0);
  expect(message).not.toMatch(STACK_FRAME);
  expect(message).not.toMatch(SOURCE_PATH);
  const whole = JSON.stringify(value);
  expect(whole).not.toContain(serverRoot);
  expect(whole).not.toMatch(/\n\s+at\s/);
}

const SERVER_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

const sessions = new Map<Version, Record<string, string>>();

function baseUrl(server: "stateful" | "stateless"): string {
  return `${inject(server === "stateful" ? "statefulUrl" : "statelessUrl")}/api/mcp`;
}

function requestBody(body: Case["body"]): { init: RequestInit; contentType: boolean } {
  if (body === undefined) return { init: {}, contentType: false };
  if (typeof body === "string") return { init: { body }, contentType: true };
  if (body instanceof Uint8Array) return { init: { body }, contentType: false };
  if (body instanceof Chunked) throw new Error("a Chunked body is sent with via: \"node-http\"");
  return { init: { body: JSON.stringify(body) }, contentType: true };
}

function headersFor(c: Case, contentType: boolean): Record<string, string> {
  const merged: Record<string, string | null> = {
    ...(contentType ? { "content-type": "application/json" } : {}),
    accept: c.method === "GET" ? "text/event-stream" : JSON_AND_SSE,
    ...(c.session ? sessions.get(c.session) : {}),
    ...c.headers,
  };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) if (v !== null) headers[k] = v;
  return headers;
}

function toReply(status: number, headers: Headers, text: string, started: number): Reply {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status, headers, text, json, ms: performance.now() - started };
}

/** One request over node:http through `agent` (keep-alive, one socket), bounded like fetch. */
function sendNode(c: Case, agent: Agent): Promise<Reply> {
  const method = c.method ?? "POST";
  const chunks: (string | Uint8Array)[] = [];
  const body = c.body;
  if (typeof body === "string" || body instanceof Uint8Array) chunks.push(body);
  else if (body instanceof Chunked) {
    chunks.push(body.prefix);
    const chunk = "x".repeat(body.chunkSize);
    for (let i = 0; i < body.chunks; i++) chunks.push(chunk);
    chunks.push('"}}');
  } else if (body !== undefined) chunks.push(JSON.stringify(body));
  const headers = headersFor(c, body !== undefined && !(body instanceof Uint8Array));
  // A single chunk gets a Content-Length; a Chunked body goes out with Transfer-Encoding: chunked.
  if (chunks.length === 1) headers["content-length"] = String(Buffer.byteLength(chunks[0] ?? ""));
  const started = performance.now();
  return new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(
      baseUrl(c.server ?? "stateful"),
      { method, headers, agent, signal: AbortSignal.timeout(5_000) },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (d: Buffer) => parts.push(d));
        res.on("error", reject);
        res.on("end", () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          resolve(toReply(res.statusCode ?? 0, h, Buffer.concat(parts).toString("utf8"), started));
        });
      },
    );
    req.on("error", (error) => reject(new Error(`no HTTP answer for "${c.name}": ${String(error)}`)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

async function send(c: Case): Promise<Reply> {
  const method = c.method ?? "POST";
  const { init, contentType } = requestBody(c.body);
  const headers = headersFor(c, contentType);
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(baseUrl(c.server ?? "stateful"), { ...init, method, headers, signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    // A server that resets the connection instead of answering shows up here.
    throw new Error(`no HTTP answer for "${c.name}": ${String(error)}`);
  }
  return toReply(res.status, res.headers, await res.text(), started);
}

describe("bad input on /api/mcp", () => {
  beforeAll(async () => {
    for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"] as const) {
      sessions.set(version, await openSession(baseUrl("stateful"), version));
    }
  });

  it("has a table of at least 40 distinct cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    // One keep-alive socket per case, so `followUp` reuses the connection the case used.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const reply = c.via === "node-http" ? await sendNode(c, agent) : await send(c);
      expectReply(c, reply);
      if (c.followUp) {
        const next = await sendNode({ name: `${c.name} (follow-up ping)`, session: c.session, body: ping("after"), status: 200, code: null }, agent);
        expect(next.status, `a ping on the same connection after "${c.name}"`).toBe(200);
        expect(next.json).toEqual({ jsonrpc: "2.0", id: "after", result: {} });
      }
    } finally {
      agent.destroy();
    }
  });
});

function expectReply(c: Case, reply: Reply): void {
  const context = `${c.name}: ${reply.status} ${reply.text.slice(0, 400)}`;

  expect(reply.status, context).toBeLessThan(500);
  expect(reply.ms, context).toBeLessThan(5_000);
  const statuses: readonly number[] = typeof c.status === "number" ? [c.status] : c.status;
  expect(statuses, context).toContain(reply.status);

  if (reply.status === 202 || reply.status === 204 || c.method === "HEAD") {
    expect(reply.text, context).toBe("");
  }

  if (c.code !== null) {
    assertCleanError(reply.json, SERVER_ROOT);
    expect(reply.headers.get("content-type"), context).toMatch(/^application\/json/);
    const body = reply.json as ErrorBody;
    expect(body.error.code, context).toBe(c.code);
    if (c.id !== undefined) expect(body.id, context).toBe(c.id);
  } else if (isRecord(reply.json)) {
    // A single success body: a result, not an error.
    expect(reply.json, context).not.toHaveProperty("error");
    expect(reply.json.jsonrpc, context).toBe("2.0");
    if (c.id !== undefined) expect(reply.json.id, context).toBe(c.id);
  } else if (Array.isArray(reply.json)) {
    // A batch answer: every error element is as clean as a single error body.
    for (const item of reply.json) if (isErrorBody(item)) assertCleanError(item, SERVER_ROOT);
  }

  c.check?.(reply);
}
