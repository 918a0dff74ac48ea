import { JSON_AND_SSE, openSession, post, sseMessages, type RawResponse } from "./mcp-http";

/**
 * One JSON-RPC request in either protocol era, as a client of that era sends it: 2025-11-25 inside
 * a session (initialize first), 2026-07-28 stateless with `_meta` and the Mcp-Method/Mcp-Name
 * headers. For suites that must prove one behaviour in both eras.
 */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

export interface EraClient {
  era: Era;
  /** Sends one request; `extraHeaders` go on top of the era's own (to test header handling). */
  request(method: string, params?: Record<string, unknown>, extraHeaders?: Record<string, string>): Promise<RawResponse & { message: Record<string, unknown> | undefined }>;
}

const META_2026 = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** The JSON-RPC message of an answer: the JSON body, or the last message with an id of an SSE stream. */
export function messageOf(r: RawResponse): Record<string, unknown> | undefined {
  if (r.headers.get("content-type")?.startsWith("text/event-stream")) {
    const withId = sseMessages(r.text).filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null && "id" in m);
    return withId.at(-1);
  }
  return typeof r.json === "object" && r.json !== null ? (r.json as Record<string, unknown>) : undefined;
}

let nextId = 1;

export async function eraClient(endpoint: string, era: Era, token?: string): Promise<EraClient> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (era === "2025-11-25") {
    const session = await openSessionWith(endpoint, auth);
    return {
      era,
      async request(method, params = {}, extraHeaders = {}) {
        const r = await post(endpoint, { jsonrpc: "2.0", id: nextId++, method, params }, { ...auth, ...session, ...extraHeaders });
        return { ...r, message: messageOf(r) };
      },
    };
  }
  return {
    era,
    async request(method, params = {}, extraHeaders = {}) {
      const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
      const headers: Record<string, string> = {
        accept: JSON_AND_SSE,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(name !== undefined ? { "mcp-name": name } : {}),
        ...auth,
        ...extraHeaders,
      };
      const r = await post(endpoint, { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: { ...META_2026, ...((params._meta as object | undefined) ?? {}) } } }, headers);
      return { ...r, message: messageOf(r) };
    },
  };
}

/** initialize (+ initialized) with the caller's own headers; the session headers later requests need. */
async function openSessionWith(endpoint: string, auth: Record<string, string>): Promise<Record<string, string>> {
  if (Object.keys(auth).length === 0) return openSession(endpoint);
  const init = await post(endpoint, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } } }, auth);
  if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const headers: Record<string, string> = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
  await post(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, { ...auth, ...headers });
  return headers;
}

/** A tools/call result, or undefined when the answer was a JSON-RPC error. */
export function toolResult(message: Record<string, unknown> | undefined): { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> } | undefined {
  return message?.result as ReturnType<typeof toolResult>;
}

export type ToolResult = NonNullable<ReturnType<typeof toolResult>>;

/** tools/call through `client`; its result, or a thrown error naming the answer when there is none. */
export async function callTool(client: EraClient, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = await client.request("tools/call", { name, arguments: args });
  const result = toolResult(r.message);
  if (!result) throw new Error(`${name}: no result (HTTP ${r.status}): ${r.text.slice(0, 300)}`);
  return result;
}
