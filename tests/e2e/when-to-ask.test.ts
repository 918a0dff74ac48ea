/**
 * When the server may ask the client something (elicitation/create, sampling/createMessage,
 * roots/list) in the 2025 revisions: only when the client declared the capability (and, for
 * elicitation, the mode), the revision has the request, the client has sent
 * notifications/initialized, and the POST's answer can be an SSE stream to carry the question.
 * Otherwise the tool is told it cannot ask: delete_world falls back to `confirmName`, a tool that
 * asks anyway gets `client_request_failed` at once — never a question the client cannot answer.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { newSubject, tokenFor } from "../support/auth";
import { JSON_AND_SSE, statelessHeaders } from "../support/mcp-http";
import { SseReader, messageOf } from "../support/sdk-client";
import { isRecord, type Json } from "../support/raw-sessions";

const appUrl = () => `${inject("statefulUrl")}/api/mcp`;
const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;

let token = "";
beforeAll(async () => {
  token = await tokenFor(inject("statefulUrl"), newSubject("ask"));
});

let nextId = 1;

interface Session {
  url: string;
  headers: Record<string, string>;
}

/** initialize at `version` with `capabilities`; notifications/initialized unless told not to. */
async function session(url: string, version: string, capabilities: Json, { initialized = true } = {}): Promise<Session> {
  const auth = { authorization: `Bearer ${token}` };
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...auth },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: version, capabilities, clientInfo: { name: "when-to-ask", version: "1" } } }),
    signal: AbortSignal.timeout(10_000),
  });
  const sessionId = res.headers.get("mcp-session-id");
  expect(res.status, await res.text()).toBe(200);
  expect(sessionId).toBeTruthy();
  const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": version, ...auth };
  if (initialized) {
    const sent = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(sent.status).toBe(202);
  }
  return { url, headers };
}

/** What the server first says about one tools/call: the question it asks, or its answer. */
interface FirstWord {
  status: number;
  contentType: string;
  /** A server → client request sent before the answer, if any. */
  question: Json | undefined;
  /** The call's result, when it came first. */
  result: Json | undefined;
}

async function firstWord(s: Session, name: string, args: Json, accept = JSON_AND_SSE): Promise<FirstWord> {
  const id = `call-${nextId++}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const res = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept, ...s.headers },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
      signal: controller.signal,
    });
    const contentType = res.headers.get("content-type") ?? "";
    if (!contentType.startsWith("text/event-stream")) {
      const body = (await res.json()) as Json;
      return { status: res.status, contentType, question: undefined, result: isRecord(body.result) ? body.result : undefined };
    }
    const reader = new SseReader(res.body!);
    for (;;) {
      const event = await reader.next(8_000);
      if (!event) return { status: res.status, contentType, question: undefined, result: undefined };
      const message = messageOf(event);
      if (!message) continue;
      if (typeof message.method === "string" && "id" in message) {
        await reader.cancel();
        return { status: res.status, contentType, question: message, result: undefined };
      }
      if (message.id === id) {
        await reader.cancel();
        return { status: res.status, contentType, question: undefined, result: isRecord(message.result) ? message.result : undefined };
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function createWorld(s: Session): Promise<{ id: string; name: string }> {
  const name = `Ask ${Math.random().toString(36).slice(2, 10)}`;
  const created = await firstWord(s, "create_world", { name, theme: "test" });
  const world = (created.result?.structuredContent as Json | undefined)?.world as Json | undefined;
  expect(typeof world?.id).toBe("string");
  return { id: world!.id as string, name };
}

const errorCodeOf = (result: Json | undefined) => ((result?.structuredContent as Json | undefined)?.error as Json | undefined)?.code;

/** delete_world could not ask: nothing deleted, the model is told to confirm by name. */
function expectConfirmByName(word: FirstWord): void {
  expect(word.question, JSON.stringify(word.question)).toBeUndefined();
  expect(word.result?.isError).toBe(true);
  expect(errorCodeOf(word.result)).toBe("confirmation_required");
}

describe("delete_world asks only a client that can answer (2025 revisions)", () => {
  it("control: a 2025-11-25 client declaring form elicitation ({}) is asked with mode form", async () => {
    const s = await session(appUrl(), "2025-11-25", { elicitation: {} });
    const world = await createWorld(s);
    const word = await firstWord(s, "delete_world", { worldId: world.id });
    expect(word.question).toMatchObject({ method: "elicitation/create", params: { mode: "form", requestedSchema: { required: ["confirm"] } } });
  });

  it("a client declaring only URL mode is never sent a form (client/elicitation §capabilities); confirmName still works", async () => {
    const s = await session(appUrl(), "2025-11-25", { elicitation: { url: {} } });
    const world = await createWorld(s);
    expectConfirmByName(await firstWord(s, "delete_world", { worldId: world.id }));
    const deleted = await firstWord(s, "delete_world", { worldId: world.id, confirmName: world.name });
    expect(deleted.result?.structuredContent).toMatchObject({ deleted: true, worldId: world.id });
  });

  it("before notifications/initialized the client is not asked (basic/lifecycle §initialization)", async () => {
    const s = await session(appUrl(), "2025-11-25", { elicitation: {} }, { initialized: false });
    const world = await createWorld(s);
    expectConfirmByName(await firstWord(s, "delete_world", { worldId: world.id }));
  });

  it("after notifications/initialized the same client is asked", async () => {
    const s = await session(appUrl(), "2025-11-25", { elicitation: {} }, { initialized: false });
    const world = await createWorld(s);
    const sent = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...s.headers },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(sent.status).toBe(202);
    const word = await firstWord(s, "delete_world", { worldId: world.id });
    expect(word.question).toMatchObject({ method: "elicitation/create" });
  });

  it("2025-03-26 has no elicitation: a client declaring it is not asked", async () => {
    const s = await session(appUrl(), "2025-03-26", { elicitation: {} });
    const world = await createWorld(s);
    expectConfirmByName(await firstWord(s, "delete_world", { worldId: world.id }));
  });

  it("2025-06-18 asks with that revision's shape: message and requestedSchema, no mode", async () => {
    const s = await session(appUrl(), "2025-06-18", { elicitation: {} });
    const world = await createWorld(s);
    const word = await firstWord(s, "delete_world", { worldId: world.id });
    expect(word.question).toMatchObject({ method: "elicitation/create", params: { requestedSchema: { required: ["confirm"] } } });
    expect(Object.keys((word.question?.params as Json) ?? {}).sort()).toEqual(["message", "requestedSchema"]);
  });

  it("a POST whose Accept allows JSON only cannot carry a question: JSON answer at once, confirmName fallback", async () => {
    const s = await session(appUrl(), "2025-11-25", { elicitation: {} });
    const world = await createWorld(s);
    const started = Date.now();
    const word = await firstWord(s, "delete_world", { worldId: world.id }, "application/json");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(word.status).toBe(200);
    expect(word.contentType).toMatch(/^application\/json/);
    expectConfirmByName(word);
  });
});

describe("a tool that asks anyway fails at once with client_request_failed", () => {
  it("test_elicitation on a JSON-only POST: an isError result as JSON, no question", async () => {
    const s = await session(fixtureUrl(), "2025-11-25", { elicitation: {} });
    const word = await firstWord(s, "test_elicitation", { message: "Who are you?" }, "application/json");
    expect(word.contentType).toMatch(/^application\/json/);
    expect(word.result?.isError).toBe(true);
    expect(errorCodeOf(word.result)).toBe("client_request_failed");
  });

  it("test_elicitation (a form) for a URL-only client", async () => {
    const s = await session(fixtureUrl(), "2025-11-25", { elicitation: { url: {} } });
    const word = await firstWord(s, "test_elicitation", { message: "Who are you?" });
    expect(word.question).toBeUndefined();
    expect(errorCodeOf(word.result)).toBe("client_request_failed");
    expect((word.result?.content as Json[])[0]?.text).toMatch(/form/);
  });

  it("test_elicitation at 2025-03-26, and before notifications/initialized", async () => {
    for (const s of [await session(fixtureUrl(), "2025-03-26", { elicitation: {} }), await session(fixtureUrl(), "2025-11-25", { elicitation: {} }, { initialized: false })]) {
      const word = await firstWord(s, "test_elicitation", { message: "Who are you?" });
      expect(word.question).toBeUndefined();
      expect(errorCodeOf(word.result)).toBe("client_request_failed");
    }
  });

  it("sampling is asked at 2025-03-26 (it exists since 2024-11-05), not before notifications/initialized", async () => {
    const asked = await firstWord(await session(fixtureUrl(), "2025-03-26", { sampling: {} }), "test_sampling", { prompt: "hi" });
    expect(asked.question).toMatchObject({ method: "sampling/createMessage" });
    const early = await firstWord(await session(fixtureUrl(), "2025-03-26", { sampling: {} }, { initialized: false }), "test_sampling", { prompt: "hi" });
    expect(early.question).toBeUndefined();
    expect(errorCodeOf(early.result)).toBe("client_request_failed");
  });
});

describe("2026-07-28 input requests follow the same rules (basic/patterns/mrtr: no undeclared inputRequests)", () => {
  const V2026 = "2026-07-28";

  async function call2026(url: string, name: string, args: Json, capabilities: Json): Promise<{ status: number; body: Json }> {
    const params = { name, arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": capabilities } };
    const res = await fetch(url, {
      method: "POST",
      headers: { ...statelessHeaders(V2026, "tools/call", params), authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: `m-${nextId++}`, method: "tools/call", params }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }

  async function createWorld2026(): Promise<string> {
    const created = await call2026(appUrl(), "create_world", { name: `Ask26 ${Math.random().toString(36).slice(2, 10)}`, theme: "test" }, {});
    return (((created.body.result as Json).structuredContent as Json).world as Json).id as string;
  }

  it("delete_world asks a form-capable client ({}) with an input request in form mode", async () => {
    const worldId = await createWorld2026();
    const { body } = await call2026(appUrl(), "delete_world", { worldId }, { elicitation: {} });
    expect(body.result).toMatchObject({ resultType: "input_required", inputRequests: { confirm_delete: { method: "elicitation/create", params: { mode: "form" } } } });
  });

  it("delete_world never puts a form in inputRequests for a URL-only client: confirmName fallback", async () => {
    const worldId = await createWorld2026();
    const { body } = await call2026(appUrl(), "delete_world", { worldId }, { elicitation: { url: {} } });
    const result = body.result as Json;
    expect(result.inputRequests).toBeUndefined();
    expect(result.isError).toBe(true);
    expect(errorCodeOf(result)).toBe("confirmation_required");
  });

  it("a tool that asks a form of a URL-only client is 400 -32021 naming form elicitation", async () => {
    const { status, body } = await call2026(fixtureUrl(), "test_input_required_result_elicitation", {}, { elicitation: { url: {} } });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect((body.error as Json).message).toMatch(/form mode/);
  });
});
