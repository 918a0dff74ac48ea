/**
 * Helpers for end-to-end tests that drive the real server with the official v2 client
 * (@modelcontextprotocol/client 2.x) in modern mode: version negotiation pinned to 2026-07-28,
 * so connect() sends server/discover and never initialize. Every HTTP exchange the client makes
 * is recorded (method, headers both ways, status, parsed JSON-RPC body) so tests can check what
 * went over the wire, e.g. that no Mcp-Session-Id ever appears. Every client made here is closed
 * when the current test finishes.
 */
import { onTestFinished } from "vitest";
import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport, type ClientCapabilities, type FetchLike } from "@modelcontextprotocol/client";

export const MODERN = "2026-07-28";

/** One HTTP request the client made and the head of the answer it got. */
export interface HttpExchange {
  method: string;
  requestHeaders: Headers;
  /** The JSON-RPC message the request carried (undefined for GET/DELETE or a non-JSON body). */
  body: JsonRpcOut | undefined;
  /** undefined when fetch itself failed (e.g. the request was aborted before the answer). */
  status: number | undefined;
  responseHeaders: Headers | undefined;
}

export interface JsonRpcOut {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

export interface ModernConnectOptions {
  capabilities?: ClientCapabilities;
  /** Runs before connect: register request/notification handlers here. */
  setup?: (client: Client) => void;
  name?: string;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  token?: string;
}

export interface ModernConnected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every HTTP request the client sent so far, in order. */
  http: HttpExchange[];
  /** Everything the client reported on onerror. */
  errors: Error[];
  /** The JSON-RPC requests (bodies with an id and a method) sent so far. */
  requests(method?: string): JsonRpcOut[];
  close(): Promise<void>;
}

function parseBody(body: unknown): JsonRpcOut | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonRpcOut) : undefined;
  } catch {
    return undefined;
  }
}

/** A fetch that records every exchange into `log` and otherwise behaves exactly like fetch. */
export function recordingFetch(log: HttpExchange[]): FetchLike {
  return async (url, init) => {
    const exchange: HttpExchange = {
      method: init?.method ?? "GET",
      requestHeaders: new Headers(init?.headers),
      body: parseBody(init?.body),
      status: undefined,
      responseHeaders: undefined,
    };
    log.push(exchange);
    const response = await fetch(url, init);
    exchange.status = response.status;
    exchange.responseHeaders = response.headers;
    return response;
  };
}

/** `fetch` with `Authorization: Bearer <token>` added to every request. */
export function bearerFetch(token: string, inner: FetchLike): FetchLike {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return inner(url, { ...init, headers });
  };
}

export async function connectModernClient(url: string, options: ModernConnectOptions = {}): Promise<ModernConnected> {
  const http: HttpExchange[] = [];
  const errors: Error[] = [];
  // The token is added before recording, so the log shows what went on the wire.
  const send = options.token ? bearerFetch(options.token, recordingFetch(http)) : recordingFetch(http);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: send });
  const client = new Client(
    { name: options.name ?? "worldcrafter-e2e-v2", version: "2.0.0" },
    {
      capabilities: options.capabilities ?? {},
      versionNegotiation: { mode: { pin: MODERN }, probe: { timeoutMs: 10_000 } },
    },
  );
  client.onerror = (error) => errors.push(error);
  options.setup?.(client);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close();
  };
  onTestFinished(close);
  await client.connect(transport);
  const requests = (method?: string) =>
    http.flatMap((h) => (h.body && h.body.id !== undefined && h.body.method !== undefined && (method === undefined || h.body.method === method) ? [h.body] : []));
  return { client, transport, http, errors, requests, close };
}

/** The error a v2 client call rejected with, narrowed to ProtocolError (fails the test otherwise). */
export async function protocolErrorOf(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    const detail = error instanceof SdkError ? ` (${error.code}, data ${JSON.stringify(error.data)})` : "";
    throw new Error(`expected a ProtocolError, got ${error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error)}${detail}`);
  }
  throw new Error("expected the call to fail with a ProtocolError, but it succeeded");
}
