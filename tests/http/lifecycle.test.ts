import { describe, expect, inject, it } from "vitest";
import { JSON_AND_SSE, LATEST, openSession, post, sseMessages, statelessHeaders } from "../support/mcp-http";

const url = () => `${inject("statefulUrl")}/api/mcp`;

describe("lifecycle on /api/mcp", () => {
  it("negotiates: echoes a supported version and offers the latest for an unknown one", async () => {
    for (const [asked, expected] of [
      ["2025-03-26", "2025-03-26"],
      ["2025-06-18", "2025-06-18"],
      [LATEST, LATEST],
      ["1999-01-01", LATEST],
    ] as const) {
      const res = await post(url(), {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      expect(res.status).toBe(200);
      expect((res.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe(expected);
      expect(res.headers.get("mcp-session-id")).toMatch(/^[\x21-\x7e]{16,}$/);
    }
  });

  it("answers ping with an empty result inside a session", async () => {
    const headers = await openSession(url());
    const res = await post(url(), { jsonrpc: "2.0", id: 7, method: "ping" }, headers);
    expect(res.json).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  // basic/transports §protocol version header: required on every later request; invalid or
  // unsupported is 400. DELETE is one of them, and a refused DELETE leaves the session alive.
  it("refuses a DELETE whose MCP-Protocol-Version is invalid, unsupported or not the session's; the session lives on", async () => {
    const headers = await openSession(url(), LATEST);
    for (const version of ["1999-01-01", "banana", "", "2025-06-18"]) {
      const res = await fetch(url(), { method: "DELETE", headers: { ...headers, "mcp-protocol-version": version } });
      const body = (await res.json()) as { id: unknown; error?: { code: number; message: string } };
      expect(res.status, `DELETE with MCP-Protocol-Version "${version}"`).toBe(400);
      expect(body.error?.code).toBe(-32600);
      expect(body.id).toBeNull();
    }
    const alive = await post(url(), { jsonrpc: "2.0", id: 1, method: "ping" }, headers);
    expect(alive.status).toBe(200);
    // Without the header the session's version applies, as on GET and POST.
    const { "mcp-protocol-version": _version, ...withoutVersion } = headers;
    const ended = await fetch(url(), { method: "DELETE", headers: withoutVersion });
    expect(ended.status).toBe(200);
    expect((await post(url(), { jsonrpc: "2.0", id: 2, method: "ping" }, headers)).status).toBe(404);
  });

  // JSON-RPC 2.0 §5: the error answers the request it refuses, whose id was readable; only the
  // HTTP status (404: start a new session, basic/transports §session management) is the transport's.
  it("answers a request to an ended or unknown session (404) and one without Mcp-Session-Id (400) with that request's id", async () => {
    const headers = await openSession(url(), LATEST);
    expect((await fetch(url(), { method: "DELETE", headers })).status).toBe(200);
    for (const [sessionHeaders, status] of [[headers, 404], [{ ...headers, "mcp-session-id": "no-such-session" }, 404], [{ accept: JSON_AND_SSE, "mcp-protocol-version": LATEST }, 400]] as const) {
      const res = await post(url(), { jsonrpc: "2.0", id: "req-9", method: "tools/list" }, sessionHeaders);
      expect(res.status).toBe(status);
      expect((res.json as { id: unknown }).id).toBe("req-9");
    }
  });

  // JSON-RPC 2.0 §5: an error response whose request id could not be read carries "id": null;
  // the 2025-11-25 schema lets it leave the id out (JSONRPCErrorResponse.id is optional).
  it("accepts an error response that names no request (202, nothing routed): id null in every revision, no id from 2025-11-25", async () => {
    const error = { code: -32700, message: "x" };
    for (const version of ["2025-03-26", "2025-06-18", LATEST]) {
      const headers = await openSession(url(), version);
      const withNull = await post(url(), { jsonrpc: "2.0", id: null, error }, headers);
      expect(withNull.status, `id null at ${version}: ${withNull.text}`).toBe(202);
      expect(withNull.text).toBe("");
      const withoutId = await post(url(), { jsonrpc: "2.0", error }, headers);
      if (version === LATEST) {
        expect(withoutId.status, withoutId.text).toBe(202);
      } else {
        // Before 2025-11-25 the schema requires the id: invalid, but never "missing method".
        expect(withoutId.status).toBe(400);
        const body = withoutId.json as { id: unknown; error: { code: number; message: string } };
        expect(body.error.code).toBe(-32600);
        expect(body.id).toBeNull();
        expect(body.error.message).toMatch(/error response needs an "id"/);
        expect(body.error.message).not.toMatch(/method/);
      }
      // The session is unharmed.
      expect((await post(url(), { jsonrpc: "2.0", id: 3, method: "ping" }, headers)).json).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    }
  });

  it("takes an error response without an id inside a 2025-03-26 batch as invalid, with null id, and the rest answered", async () => {
    const headers = await openSession(url(), "2025-03-26");
    const res = await post(url(), [{ jsonrpc: "2.0", error: { code: 1, message: "m" } }, { jsonrpc: "2.0", id: null, error: { code: 1, message: "m" } }, { jsonrpc: "2.0", id: 4, method: "ping" }], headers);
    expect(res.status).toBe(200);
    const answers = res.json as { id: unknown; error?: { code: number } }[];
    expect(answers).toHaveLength(2);
    expect(answers).toContainEqual(expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }));
    expect(answers).toContainEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  // RFC 9110 §12.5.1 and basic/transports §sending messages: a client that accepts only SSE
  // gets its answers as SSE events, initialize's included.
  it("answers initialize, and the requests after it, as SSE when Accept allows text/event-stream only", async () => {
    for (const version of ["2025-03-26", "2025-06-18", LATEST]) {
      const init = await post(
        url(),
        { jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "sse-only", version: "1" } } },
        { accept: "text/event-stream" },
      );
      expect(init.status).toBe(200);
      expect(init.headers.get("content-type")).toBe("text/event-stream");
      const sessionId = init.headers.get("mcp-session-id");
      expect(sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
      expect(sseMessages(init.text)).toEqual([{ jsonrpc: "2.0", id: "init", result: expect.objectContaining({ protocolVersion: version }) }]);
      const headers = { accept: "text/event-stream", "mcp-session-id": sessionId!, "mcp-protocol-version": version };
      for (const [id, method] of [[5, "tools/list"], [6, "prompts/list"], [7, "resources/list"], [8, "no/such-method"]] as const) {
        const res = await post(url(), { jsonrpc: "2.0", id, method }, headers);
        expect(res.status, `${method} at ${version}`).toBe(200);
        expect(res.headers.get("content-type"), `${method} at ${version}`).toBe("text/event-stream");
        expect(sseMessages(res.text)).toContainEqual(expect.objectContaining({ id }));
      }
    }
    // With JSON acceptable, initialize stays JSON.
    const json = await post(url(), { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "t", version: "1" } } }, { accept: JSON_AND_SSE });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("answers as SSE when Accept allows text/event-stream only on the sessionless server and in 2026-07-28 too", async () => {
    const stateless = `${inject("statelessUrl")}/api/mcp`;
    const init = await post(
      stateless,
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "sse-only", version: "1" } } },
      { accept: "text/event-stream" },
    );
    expect(init.headers.get("content-type")).toBe("text/event-stream");
    expect(sseMessages(init.text)).toEqual([{ jsonrpc: "2.0", id: 1, result: expect.objectContaining({ protocolVersion: LATEST }) }]);
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    for (const [id, method] of [[2, "server/discover"], [3, "tools/list"]] as const) {
      const res = await post(url(), { jsonrpc: "2.0", id, method, params: { _meta: meta } }, { ...statelessHeaders("2026-07-28", method, {}), accept: "text/event-stream" });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(sseMessages(res.text)).toContainEqual(expect.objectContaining({ id, result: expect.any(Object) }));
    }
  });
});
