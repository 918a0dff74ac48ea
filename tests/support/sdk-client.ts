/**
 * Helpers for end-to-end tests that drive the real server with the official MCP client
 * (@modelcontextprotocol/sdk 1.x), plus small raw-HTTP utilities those tests need (an SSE event
 * reader, bounded polling). Every client made here is closed when the current test finishes.
 */
import { onTestFinished } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type ClientCapabilities, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface ConnectOptions {
  capabilities?: ClientCapabilities;
  /**
   * Ask the server for this revision in initialize. SDK 1.x always offers its latest revision and
   * has no option for another one, so the outgoing initialize request is rewritten; the SDK then
   * adopts whatever the server answers (it accepts 2025-06-18 and 2025-03-26) and sends it as
   * MCP-Protocol-Version on every later request, exactly as a client of that revision would.
   */
  protocolVersion?: string;
  /** Runs before connect: register request/notification handlers here. */
  setup?: (client: Client) => void;
  name?: string;
  /** A bearer token sent on every request (see tests/support/auth.ts). */
  token?: string;
}

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Ends the session (DELETE, when there is one) and closes the client. Idempotent. */
  close(): Promise<void>;
}

/** Rewrite the protocolVersion an initialize request offers; every other message passes unchanged. */
export function pinInitializeVersion(message: JSONRPCMessage | JSONRPCMessage[], version: string): JSONRPCMessage | JSONRPCMessage[] {
  if (Array.isArray(message)) return message;
  if ("method" in message && message.method === "initialize" && "id" in message) {
    return { ...message, params: { ...message.params, protocolVersion: version } };
  }
  return message;
}

export async function connectClient(url: string, options: ConnectOptions = {}): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    // Fail fast instead of retrying a dropped GET stream for tens of seconds.
    reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
    ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
  });
  const pinned = options.protocolVersion;
  if (pinned !== undefined) {
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => send(pinInitializeVersion(message, pinned), sendOptions);
  }
  const client = new Client({ name: options.name ?? "worldcrafter-e2e", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await transport.terminateSession();
    } catch {
      /* already ended (or the test ended it); closing is what matters */
    }
    await client.close();
  };
  onTestFinished(close);
  await client.connect(transport);
  return { client, transport, close };
}

/** The JSON-RPC error an SDK call rejected with (fails the test when it is anything else). */
export async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw new Error(`expected an McpError, got ${String(error)}`);
  }
  throw new Error("expected the call to fail with an McpError, but it succeeded");
}

/** Concatenated text of a tool result's text blocks. */
export function textOf(result: object): string {
  const content = "content" in result ? result.content : undefined;
  const blocks: unknown[] = Array.isArray(content) ? content : [];
  return blocks
    .map((b) => (typeof b === "object" && b !== null && "type" in b && b.type === "text" && "text" in b ? String(b.text) : ""))
    .join("");
}

const Cancellations = z.object({
  cancelled: z.array(z.object({ requestId: z.union([z.string(), z.number()]), reason: z.string(), at: z.number() })),
});
export type CancellationRecord = z.infer<typeof Cancellations>["cancelled"][number];

/** The fixture's record of handlers whose AbortSignal fired (shared by every session of the server). */
export async function readCancellations(client: Client): Promise<CancellationRecord[]> {
  const result = await client.callTool({ name: "test_cancellations", arguments: {} });
  return Cancellations.parse(result.structuredContent).cancelled;
}

/** Poll `probe` until it returns a value (not undefined) or the deadline passes. Bounded. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, { timeoutMs = 5_000, intervalMs = 100 } = {}): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One Server-Sent Event as the wire carried it (fields absent when the event did not set them). */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/**
 * Incremental SSE reader over a fetch body (WHATWG HTML §9.2 line rules). Unlike EventSource it
 * also yields events with empty data, because the priming event (id + empty data) is what the
 * tests look at. Comment-only blocks (keep-alives) are skipped. Every read is bounded.
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private ended = false;
  /** A read that outlived a timed-out `next`: the next call takes its chunk, so none is lost. */
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event, or undefined when the server closed the stream. */
  async next(timeoutMs = 5_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.takeEvent();
      if (event) return event;
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left)));
      const read = (this.pending ??= this.reader.read());
      const chunk = await Promise.race([read, timeout]).finally(() => clearTimeout(timer));
      if (chunk === "timeout") throw new Error(`no SSE event within ${timeoutMs} ms`);
      this.pending = undefined;
      if (chunk.done) this.ended = true;
      else {
        // CRLF and lone CR end lines too; a CR at the very end waits for the next chunk's LF.
        this.buffer = (this.buffer + this.decoder.decode(chunk.value, { stream: true })).replace(/\r\n|\r(?=[^])/g, "\n");
      }
    }
  }

  /** Every remaining event until the server closes the stream (bounded by `timeoutMs` overall). */
  async rest(timeoutMs = 5_000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const events: SseEvent[] = [];
    for (;;) {
      const event = await this.next(Math.max(1, deadline - Date.now()));
      if (!event) return events;
      events.push(event);
    }
  }

  /** Read until an event satisfies `match`; returns it (and leaves later events unread). */
  async until(match: (event: SseEvent) => boolean, timeoutMs = 5_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await this.next(Math.max(1, deadline - Date.now()));
      if (!event) throw new Error("the SSE stream ended before the expected event");
      if (match(event)) return event;
    }
  }

  /** Stop reading: the connection is torn down, as when a client goes away. */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private takeEvent(): SseEvent | undefined {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) return undefined;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event = parseBlock(block);
      if (event) return event;
    }
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let seen = false;
  const data: string[] = [];
  const event: SseEvent = { data: "" };
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    seen = true;
    if (field === "data") data.push(value);
    else if (field === "id") event.id = value;
    else if (field === "event") event.event = value;
    else if (field === "retry" && /^\d+$/.test(value)) event.retry = Number(value);
  }
  if (!seen) return undefined;
  event.data = data.join("\n");
  return event;
}

/** The JSON-RPC message an SSE event carries, or undefined for priming/empty events. */
export function messageOf(event: SseEvent): Record<string, unknown> | undefined {
  if (event.data === "") return undefined;
  const parsed: unknown = JSON.parse(event.data);
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}
