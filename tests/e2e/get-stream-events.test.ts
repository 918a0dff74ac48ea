import { describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { post } from "../support/mcp-http";
import { SseReader } from "../support/sdk-client";

/**
 * Issue 19: a GET stream carries JSON-RPC messages only unless it asks for seed 001's named events
 * (`GET /api/mcp?events=named`): the official Python SDK logs "Unknown SSE event" for each
 * `connected`/`tool-*` event it meets. Keep-alives are SSE comments, which every client ignores.
 * (The GET stream exists in the session era only; 2026-07-28 has none.)
 */
async function session(url: string, token: string): Promise<Record<string, string>> {
  const auth = { authorization: `Bearer ${token}` };
  const init = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "events", version: "1" } } }, auth);
  const headers = { ...auth, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

async function openGet(url: string, headers: Record<string, string>, abort: AbortController): Promise<SseReader> {
  const r = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" }, signal: abort.signal });
  expect(r.status).toBe(200);
  return new SseReader(r.body!);
}

describe("the GET stream's named events are opt-in", () => {
  const url = () => `${inject("statefulUrl")}/api/mcp`;

  it("a plain GET stream gets no named event, not even while the subject's tools run", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("plain-get"));
    const headers = await session(url(), token);
    const abort = new AbortController();
    try {
      const reader = await openGet(url(), headers, abort);
      const call = await post(url(), { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "suggest_names", arguments: { style: "elvish", count: 1 } } }, headers);
      expect(call.status).toBe(200);
      expect(JSON.stringify(call.json)).not.toContain('"error"');
      const events = [];
      for (;;) {
        try {
          events.push(await reader.next(1_500));
        } catch {
          break; // nothing more within the wait: the stream stayed quiet
        }
      }
      expect(events.filter((e) => e?.event !== undefined)).toEqual([]);
    } finally {
      abort.abort();
    }
  });

  it("?events=named gets connected and the tool events", async () => {
    const token = await tokenFor(inject("statefulUrl"), newSubject("named-get"));
    const headers = await session(url(), token);
    const abort = new AbortController();
    try {
      const reader = await openGet(`${url()}?events=named`, headers, abort);
      expect((await reader.until((e) => e.event !== undefined)).event).toBe("connected");
      await post(url(), { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "suggest_names", arguments: { style: "elvish", count: 1 } } }, headers);
      const done = await reader.until((e) => e.event === "tool-complete", 5_000);
      expect(JSON.parse(done.data)).toMatchObject({ toolName: "suggest_names" });
    } finally {
      abort.abort();
    }
  });
});
