/**
 * Raw Streamable HTTP for tests that must choose which instance each request reaches: a 2025-era
 * session opened on one URL and used on another, JSON-RPC requests answered as JSON or SSE, and
 * SSE responses (GET streams, streaming POSTs, 2026-07-28 listens) read event by event and closed
 * on purpose. Every fetch is bounded or abortable.
 */
import { onTestFinished } from "vitest";
import { JSON_AND_SSE, sseMessages } from "./mcp-http";
import { SseReader, messageOf, type SseEvent } from "./sdk-client";

export const V2025 = "2025-11-25";
export const V2026 = "2026-07-28";

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The headers every later request of a session carries. */
export interface SessionRef {
  sessionId: string;
  headers: Record<string, string>;
}

/** initialize on `url` (no notifications/initialized: the caller sends it where it wants). */
export async function initialize(url: string, options: { token?: string; capabilities?: Json } = {}): Promise<SessionRef> {
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...auth },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: V2025, capabilities: options.capabilities ?? {}, clientInfo: { name: "scale-out-test", version: "1" } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const sessionId = res.headers.get("mcp-session-id");
  if (res.status !== 200 || !sessionId) throw new Error(`initialize on ${url} failed: ${res.status} ${text.slice(0, 300)}`);
  return { sessionId, headers: { "mcp-session-id": sessionId, "mcp-protocol-version": V2025, ...auth } };
}

export interface RpcReply {
  status: number;
  headers: Headers;
  text: string;
  /** Every JSON-RPC message of the answer (the JSON body, or each SSE data payload). */
  messages: Json[];
  /** The response to the request (by id), when there is one. */
  response: Json | undefined;
}

let nextId = 1;
export const uniqueId = (prefix: string) => `${prefix}-${nextId++}-${Date.now().toString(36)}`;

/** POST one message with the session's headers and read the whole answer (bounded). */
export async function postMessage(url: string, headers: Record<string, string>, message: Json, timeoutMs = 15_000): Promise<RpcReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  let parsed: unknown[] = [];
  if (sse) parsed = sseMessages(text);
  else if (text) {
    try {
      parsed = [JSON.parse(text) as unknown];
    } catch {
      parsed = [];
    }
  }
  const messages = parsed.filter(isRecord);
  const response = "id" in message ? messages.find((m) => m.id === message.id && ("result" in m || "error" in m)) : undefined;
  return { status: res.status, headers: res.headers, text, messages, response };
}

/** A request's result; fails with the whole answer when there is none. */
export async function request(url: string, headers: Record<string, string>, method: string, params: Json = {}): Promise<Json> {
  const reply = await postMessage(url, headers, { jsonrpc: "2.0", id: uniqueId(method), method, params });
  const result = reply.response?.result;
  if (reply.status !== 200 || !isRecord(result)) throw new Error(`${method} on ${url}: HTTP ${reply.status} ${reply.text.slice(0, 400)}`);
  return result;
}

export function callTool(url: string, headers: Record<string, string>, name: string, args: Json = {}, meta?: Json): Promise<Json> {
  return request(url, headers, "tools/call", { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
}

/** An SSE response being read; `close()` drops the connection as a client going away does. */
export interface OpenStream {
  status: number;
  headers: Headers;
  reader: SseReader;
  close(): Promise<void>;
}

/**
 * Open a request whose answer is an SSE stream. Non-SSE answers fail with their body. The stream
 * is closed when the current test finishes, whatever happened.
 */
export async function openStream(url: string, init: { method: "GET" | "POST"; headers: Record<string, string>; body?: Json }): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: init.method,
    headers: init.method === "POST" ? { "content-type": "application/json", accept: JSON_AND_SSE, ...init.headers } : { accept: "text/event-stream", ...init.headers },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    signal: controller.signal,
  });
  if (res.status !== 200 || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream") || !res.body) {
    const text = await res.text().catch(() => "");
    controller.abort();
    throw new Error(`${init.method} ${url}: expected an SSE stream, got ${res.status} ${res.headers.get("content-type")}: ${text.slice(0, 300)}`);
  }
  const reader = new SseReader(res.body);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await reader.cancel();
    controller.abort();
  };
  onTestFinished(close);
  return { status: res.status, headers: res.headers, reader, close };
}

/** The JSON-RPC method an SSE event's message names (notifications and server requests). */
export function methodOf(event: SseEvent): string | undefined {
  if (event.event !== undefined) return undefined;
  const message = messageOf(event);
  return typeof message?.method === "string" ? message.method : undefined;
}

/** A named event's JSON data (tool-progress, tool-complete, …). */
export function namedData(event: SseEvent): Json {
  const parsed: unknown = JSON.parse(event.data);
  if (!isRecord(parsed)) throw new Error(`named event ${event.event} carries no JSON object: ${event.data}`);
  return parsed;
}

/**
 * A 2026-07-28 subscriptions/listen stream on `url` for the caller's `taskIds` (the request
 * declares the tasks extension), its acknowledgement read: what follows are notifications/tasks.
 */
export async function listenForTasks(url: string, taskIds: string[]): Promise<OpenStream> {
  const params = { notifications: { taskIds } };
  const stream = await openStream(url, {
    method: "POST",
    headers: { "mcp-protocol-version": V2026, "mcp-method": "subscriptions/listen" },
    body: {
      jsonrpc: "2.0",
      id: uniqueId("listen"),
      method: "subscriptions/listen",
      params: {
        ...params,
        _meta: { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } },
      },
    },
  });
  const ack = await stream.reader.next();
  if (!ack || methodOf(ack) !== "notifications/subscriptions/acknowledged") throw new Error(`listen was not acknowledged: ${ack?.data}`);
  return stream;
}

/**
 * The statuses of the notifications/tasks a listen stream carries until none comes for `quietMs`
 * (long enough for an announcement to arrive: the stream stays open for more).
 */
export async function taskStatusesUntilQuiet(stream: OpenStream, quietMs: number): Promise<string[]> {
  const statuses: string[] = [];
  for (;;) {
    const event = await stream.reader.next(quietMs).catch(() => undefined);
    if (!event) return statuses;
    const message = messageOf(event);
    if (message?.method !== "notifications/tasks" || !isRecord(message.params)) throw new Error(`not a task notification: ${event.data}`);
    statuses.push(String(message.params.status));
  }
}
