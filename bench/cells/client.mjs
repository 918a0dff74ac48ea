/** The HTTP client side: one POST, a session, the protocol eras' request shapes, decoding an answer. */
import { randomUUID } from "node:crypto";
import http from "node:http";
import { HOST, MCP_PATH, PROTOCOL_VERSION } from "../config.mjs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One POST to `server`; resolves with status, headers and the body text. `agent` undefined = no keep-alive. */
export function request(agent, server, urlPath, body, headers) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = http.request(
      {
        host: HOST,
        port: server.port,
        path: urlPath,
        method: "POST",
        agent: agent ?? false,
        headers: { "content-type": "application/json", "content-length": payload.length, ...headers },
      },
      (res) => {
        server.served++; // every answered request, warm-up included (normalizes profiles)
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

export const ACCEPT = "application/json, text/event-stream";

/**
 * initialize + notifications/initialized; returns the headers every later request carries. A
 * session belongs to its subject: one opened with `bearer` is used only with that token.
 */
export async function openSession(server, bearer) {
  const auth = bearer ? { authorization: bearer } : {};
  const init = await request(undefined, server, MCP_PATH, JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  }), { accept: ACCEPT, ...auth });
  const sessionId = init.headers["mcp-session-id"];
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: HTTP ${init.status} ${init.body.slice(0, 300)}`);
  const headers = { accept: ACCEPT, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION, ...auth };
  const ack = await request(undefined, server, MCP_PATH, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
  if (ack.status !== 202) throw new Error(`notifications/initialized: expected 202, got ${ack.status} ${ack.body.slice(0, 300)}`);
  return headers;
}

/** Session-like headers for a server without sessions: the same header bytes a session row sends. */
export const stubSession = () => ({ accept: ACCEPT, "mcp-session-id": randomUUID(), "mcp-protocol-version": PROTOCOL_VERSION });

/** A body builder: everything after the id is serialized once; only the id changes per request. */
export function rpc(method, params) {
  const tail = `,"method":${JSON.stringify(method)}${params ? `,"params":${JSON.stringify(params)}` : ""}}`;
  return (id) => `{"jsonrpc":"2.0","id":${id}${tail}`;
}

export const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** The protocol eras: 2025-11-25 in the server's session; 2026-07-28 with no session, everything in _meta and the Mcp-* headers. */
export const ERAS = [
  { suffix: "", body: rpc, headers: () => undefined },
  {
    suffix: "@2026",
    body: (method, params) => rpc(method, { ...params, _meta: { ...params?._meta, ...MODERN_META } }),
    headers: (method, name) => ({ accept: ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) }),
  },
];

/** 2025-11-25 without a session, as a stateless server (mcp-handler) is called. */
export const SESSIONLESS_2025 = { accept: ACCEPT, "mcp-protocol-version": PROTOCOL_VERSION };

/**
 * An answer's JSON-RPC messages. JSON: the body. SSE: every `data:` payload in order (the empty
 * priming event of a resumable stream skipped); `json` is the response among them, `notifications`
 * the rest. `json` is null when a payload is not JSON or there is no response.
 */
export function decodeAnswer(res) {
  const type = String(res.headers["content-type"] ?? "");
  if (!type.startsWith("text/event-stream")) {
    try {
      return { format: "json", json: JSON.parse(res.body), notifications: [] };
    } catch {
      return { format: type || "none", json: null, notifications: [] };
    }
  }
  const messages = [];
  for (const event of res.body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    if (data === "") continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      return { format: "sse", json: null, notifications: [] };
    }
  }
  const isResponse = (m) => m !== null && typeof m === "object" && "id" in m && ("result" in m || "error" in m);
  return { format: "sse", json: messages.find(isResponse) ?? null, notifications: messages.filter((m) => !isResponse(m)) };
}
