/**
 * Small raw-HTTP helpers for tests that must see exact statuses and headers (the SDK client hides
 * them). Everything goes over real fetch to the real server.
 */
export const LATEST = "2025-11-25";

export const JSON_AND_SSE = "application/json, text/event-stream";

/**
 * The headers of one 2026-07-28 request: Mcp-Method, and Mcp-Name where the method names a target
 * (the resource's uri for resources/read, else the tool's or prompt's name, or the task's id).
 */
export function statelessHeaders(protocolVersion: string, method: string, params: Record<string, unknown>): Record<string, string> {
  const target = method === "resources/read" ? params.uri : typeof params.name === "string" ? params.name : params.taskId;
  return {
    "content-type": "application/json",
    accept: JSON_AND_SSE,
    "mcp-protocol-version": protocolVersion,
    "mcp-method": method,
    ...(typeof target === "string" ? { "mcp-name": target } : {}),
  };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** initialize + notifications/initialized; returns the headers later requests need. */
export async function openSession(url: string, protocolVersion = LATEST): Promise<Record<string, string>> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const headers: Record<string, string> = { "mcp-protocol-version": protocolVersion };
  const sid = init.headers.get("mcp-session-id");
  if (sid) headers["mcp-session-id"] = sid;
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

/** Parse an SSE body into its data payloads (JSON-decoded where possible). */
export function sseMessages(text: string): unknown[] {
  return text
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n"),
    )
    .filter((d) => d.length > 0)
    .map((d) => {
      try {
        return JSON.parse(d);
      } catch {
        return d;
      }
    });
}
