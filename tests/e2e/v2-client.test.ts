/**
 * The official v2 client (@modelcontextprotocol/client 2.x) in modern mode — version negotiation
 * pinned to 2026-07-28 — against the real `next start` server: server/discover instead of
 * initialize, no session, every request on its own POST. Covers what a 2026 host does: tools,
 * progress, multi-round-trip requests (input_required) answered by the client's own handlers,
 * cancellation by closing the request's stream, subscriptions/listen, resources, prompts and
 * completion; and a 1.x session client beside it on the same server at the same time.
 */
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { MissingRequiredClientCapabilityError, ResourceNotFoundError, SdkError, SdkErrorCode, type Client, type ElicitResult, type Progress } from "@modelcontextprotocol/client";
import { connectClient, textOf, waitFor } from "../support/sdk-client";
import { MODERN, connectModernClient, protocolErrorOf, type ModernConnected } from "../support/v2-client";
import { PRODUCT_TOOLS } from "../support/product-tools";
import { invalidArgumentOf } from "../support/tool-errors";

const productUrl = () => `${inject("statefulUrl")}/api/mcp`;
const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;

const Names = z.object({ style: z.string(), kind: z.string(), names: z.array(z.string()) });
const Outline = z.object({ name: z.string(), theme: z.string(), sections: z.array(z.object({ title: z.string(), text: z.string() })) });
const Cancellations = z.object({
  cancelled: z.array(z.object({ requestId: z.union([z.string(), z.number()]), reason: z.string(), at: z.number() })),
});

/** The MRTR driver reports its own rounds through onprogress; these are not the server's. */
const isRoundMarker = (p: Progress) => typeof p.message === "string" && p.message.startsWith("Fulfilling input required");

/** Answers the fixtures' questions: a name, a colour, a context, and a model completion. */
function answerEverything(client: Client): void {
  client.setRequestHandler("elicitation/create", async (request): Promise<ElicitResult> => {
    const message = request.params.message;
    if (/colour/.test(message)) return { action: "accept", content: { color: "teal" } };
    if (/context/.test(message)) return { action: "accept", content: { context: "a drowned archipelago" } };
    return { action: "accept", content: { name: "Alice" } };
  });
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    model: "e2e-model",
    content: { type: "text", text: "Paris" },
  }));
}

async function readCancellations(client: Client) {
  const result = await client.callTool({ name: "test_cancellations", arguments: {} });
  return Cancellations.parse(result.structuredContent).cancelled;
}

/** The id the client put on the last tools/call for `tool` (its own counter; read off the wire). */
function lastCallId(connected: ModernConnected, tool: string): string | number | undefined {
  return connected.requests("tools/call").filter((r) => r.params?.name === tool).at(-1)?.id;
}

describe("v2 client (modern, 2026-07-28): discover, tools and errors", () => {
  it("connects with server/discover only: negotiates 2026-07-28, sees server info, capabilities and instructions, no session", async () => {
    const { client, transport, http, errors } = await connectModernClient(productUrl());

    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: "worldcrafter", version: "0.1.0" });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(client.getInstructions()).toMatch(/draft_world_outline/);
    expect(client.getDiscoverResult()?.supportedVersions).toContain(MODERN);
    expect(transport.sessionId).toBeUndefined();

    // On the wire: exactly one POST, server/discover, with the modern headers and envelope.
    expect(http).toHaveLength(1);
    const [probe] = http;
    expect(probe?.method).toBe("POST");
    expect(probe?.body?.method).toBe("server/discover");
    expect(probe?.requestHeaders.get("mcp-protocol-version")).toBe(MODERN);
    expect(probe?.requestHeaders.get("mcp-method")).toBe("server/discover");
    expect(probe?.requestHeaders.get("mcp-session-id")).toBeNull();
    expect(probe?.status).toBe(200);
    expect(probe?.responseHeaders?.get("mcp-session-id")).toBeNull();
    expect(probe?.body?.params?._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": MODERN });
    expect(errors).toEqual([]);
  });

  it("lists the product tools in a deterministic, sorted order (and the fixture tools too)", async () => {
    const connected = await connectModernClient(productUrl());
    const first = await connected.client.listTools();
    expect(first.nextCursor).toBeUndefined();
    expect(first.tools.map((t) => t.name)).toEqual(PRODUCT_TOOLS);
    // Bypass the client's ttl cache so the second listing really comes from the server.
    const second = await connected.client.listTools(undefined, { cacheMode: "bypass" });
    expect(connected.requests("tools/list")).toHaveLength(2);
    expect(second.tools).toEqual(first.tools);

    const fixtures = await connectModernClient(fixtureUrl());
    const names = (await fixtures.client.listTools()).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(10);
    expect(names).toEqual([...names].sort());
  });

  it("callTool suggest_names returns structuredContent (validated by the client against the listed outputSchema), deterministically", async () => {
    const { client } = await connectModernClient(productUrl());
    await client.listTools(); // fills the client's tools cache: it then validates structuredContent itself

    const args = { style: "dwarvish", kind: "place", count: 4, seed: "e2e-v2" };
    const result = await client.callTool({ name: "suggest_names", arguments: args });

    expect(result.isError).toBeFalsy();
    const structured = Names.parse(result.structuredContent);
    expect(structured).toMatchObject({ style: "dwarvish", kind: "place" });
    expect(structured.names).toHaveLength(4);
    expect(textOf(result)).toContain(structured.names[0]);
    expect((await client.callTool({ name: "suggest_names", arguments: args })).structuredContent).toEqual(structured);
  });

  it("invalid arguments come back as an isError result (server/tools §error handling) naming each failing path", async () => {
    const { client } = await connectModernClient(productUrl());
    await client.listTools(); // the client then checks structuredContent against the outputSchema, error envelope included
    const result = await client.callTool({ name: "suggest_names", arguments: { style: "klingon", count: 99 } });

    expect(result.isError).toBe(true);
    const message = invalidArgumentOf(result)?.message;
    expect(message).toMatch(/^Invalid arguments for tool suggest_names: /);
    expect(message).toMatch(/\bstyle: .*\bcount: /);
  });

  it("an unknown tool rejects with a typed ProtocolError -32602 naming the tool", async () => {
    const { client } = await connectModernClient(productUrl());
    const error = await protocolErrorOf(client.callTool({ name: "no_such_tool", arguments: {} }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("no_such_tool");
  });

  it("a failing handler (-32603: structuredContent breaking the tool's outputSchema) reaches the client as a typed ProtocolError", async () => {
    // The v2 client reads a JSON-RPC error body in-band only from 200 and 400 answers; any other
    // status (e.g. 500) becomes an untyped SdkHttpError plus an onerror report.
    const { client, errors } = await connectModernClient(fixtureUrl());
    const error = await protocolErrorOf(client.callTool({ name: "test_structured", arguments: { value: 2, lie: true } }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/outputSchema/);
    expect(errors).toEqual([]);
  });
});

describe("v2 client: progress", () => {
  it("draft_world_outline delivers 10 progress notifications to onprogress, then the outline", async () => {
    const { client } = await connectModernClient(productUrl());
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: "draft_world_outline", arguments: { name: "Eldmere", theme: "steampunk" } },
      { onprogress: (p) => seen.push(p) },
    );

    const fromServer = seen.filter((p) => !isRoundMarker(p));
    expect(fromServer).toHaveLength(10);
    expect(fromServer.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const p of fromServer) expect(p.total).toBe(10);
    const outline = Outline.parse(result.structuredContent);
    expect(outline).toMatchObject({ name: "Eldmere", theme: "steampunk" });
    expect(outline.sections).toHaveLength(10);
  });
});

describe("v2 client: multi-round-trip requests (input_required) answered by the client's handlers", () => {
  const capabilities = { elicitation: {}, sampling: {} };

  it("elicitation: the client answers user_name itself and the tool says Hello, <name>!", async () => {
    const connected = await connectModernClient(fixtureUrl(), { capabilities, setup: answerEverything });
    const result = await connected.client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });

    expect(textOf(result)).toBe("Hello, Alice!");
    // Two legs on the wire: the first without answers, the retry with inputResponses.user_name and the state.
    const legs = connected.requests("tools/call");
    expect(legs).toHaveLength(2);
    expect(legs[0]?.params?.inputResponses).toBeUndefined();
    expect(legs[1]?.params?.inputResponses).toEqual({ user_name: { action: "accept", content: { name: "Alice" } } });
    expect(typeof legs[1]?.params?.requestState).toBe("string");
    expect(legs[1]?.id).not.toBe(legs[0]?.id);
    expect(connected.errors).toEqual([]);
  });

  it("multi-round: two questions in two rounds, each retry carrying that round's answer and the new requestState", async () => {
    const connected = await connectModernClient(fixtureUrl(), { capabilities, setup: answerEverything });
    const result = await connected.client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });

    expect(textOf(result)).toBe("Alice likes teal");
    const legs = connected.requests("tools/call");
    expect(legs).toHaveLength(3);
    expect(Object.keys(legs[1]?.params?.inputResponses ?? {})).toEqual(["step1"]);
    expect(Object.keys(legs[2]?.params?.inputResponses ?? {})).toEqual(["step2"]);
    expect(typeof legs[1]?.params?.requestState).toBe("string");
    expect(typeof legs[2]?.params?.requestState).toBe("string");
    expect(legs[2]?.params?.requestState).not.toBe(legs[1]?.params?.requestState);
  });

  it("sampling: the client's sampling handler answers and the tool reports the model's text", async () => {
    const connected = await connectModernClient(fixtureUrl(), { capabilities, setup: answerEverything });
    const result = await connected.client.callTool({ name: "test_input_required_result_sampling", arguments: {} });

    expect(textOf(result)).toBe("Model says: Paris");
    const legs = connected.requests("tools/call");
    expect(legs).toHaveLength(2);
    expect(legs[1]?.params?.inputResponses).toMatchObject({ capital_question: { role: "assistant", model: "e2e-model" } });
  });

  it("without the elicitation capability the call fails with MissingRequiredClientCapabilityError (-32021) naming it", async () => {
    const { client } = await connectModernClient(fixtureUrl());
    const error = await protocolErrorOf(client.callTool({ name: "test_input_required_result_elicitation", arguments: {} }));
    expect(error).toBeInstanceOf(MissingRequiredClientCapabilityError);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it("prompts/get can ask too: test_input_required_result_prompt completes with the elicited context", async () => {
    const { client } = await connectModernClient(fixtureUrl(), { capabilities, setup: answerEverything });
    const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Context: a drowned archipelago" } }]);
  });
});

describe("v2 client: cancellation", () => {
  /**
   * test_slow {ms: 20000} reports progress every 2 s. Aborting the call's signal makes the v2
   * client close that request's HTTP stream (no notifications/cancelled is sent on this path);
   * the server must treat the closed stream as the cancellation and abort the handler.
   */
  async function abortAndCheck(connected: ModernConnected, abortWhen: "before-first-progress" | "after-first-progress") {
    const { client } = connected;
    const controller = new AbortController();
    let abortedAt = 0;
    const abort = () => {
      if (controller.signal.aborted) return;
      abortedAt = Date.now();
      controller.abort("e2e-v2-abort");
    };
    const timer = abortWhen === "before-first-progress" ? setTimeout(abort, 300) : undefined;
    let failure: unknown;
    try {
      await client.callTool(
        { name: "test_slow", arguments: { ms: 20_000 } },
        { signal: controller.signal, onprogress: abortWhen === "after-first-progress" ? abort : undefined, timeout: 10_000 },
      );
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    const rejectedAt = Date.now();

    expect(abortedAt, "the call finished before the test aborted it").toBeGreaterThan(0);
    expect(failure).toBeInstanceOf(SdkError);
    expect(failure instanceof SdkError ? failure.code : undefined).toBe(SdkErrorCode.RequestTimeout);
    expect(String(failure)).toContain("e2e-v2-abort");
    expect(rejectedAt - abortedAt).toBeLessThan(1_000);

    const requestId = lastCallId(connected, "test_slow");
    expect(requestId).toBeDefined();
    // The fixture's record is shared by every client of the server: match this call's id, a
    // closed-stream reason and a time after this abort.
    const entry = await waitFor(
      async () =>
        (await readCancellations(client)).find((c) => c.requestId === requestId && /client closed the/.test(c.reason) && c.at >= abortedAt - 50),
      { timeoutMs: 3_000, intervalMs: 100 },
    );
    expect(entry, "test_slow's AbortSignal never fired").toBeDefined();
    expect((entry?.at ?? Infinity) - abortedAt).toBeLessThan(1_000);
  }

  it("aborting before the response has started rejects on the client and aborts the server handler within 1 s", async () => {
    const connected = await connectModernClient(fixtureUrl());
    await abortAndCheck(connected, "before-first-progress");
    // The client goes on working after the abort.
    expect(textOf(await connected.client.callTool({ name: "test_simple_text", arguments: {} }))).toContain("simple text");
  });

  it("aborting mid-stream (after the first progress event) rejects on the client and aborts the server handler within 1 s", async () => {
    const connected = await connectModernClient(fixtureUrl());
    await abortAndCheck(connected, "after-first-progress");
  });
});

describe("v2 client: subscriptions/listen", () => {
  it("listen({toolsListChanged}) is acknowledged, and test_trigger_tool_change delivers notifications/tools/list_changed on it", async () => {
    const received: { subscriptionId: unknown; at: number }[] = [];
    const connected = await connectModernClient(fixtureUrl(), {
      setup: (client) =>
        client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
          received.push({ subscriptionId: notification.params?._meta?.["io.modelcontextprotocol/subscriptionId"], at: Date.now() });
        }),
    });
    const { client } = connected;

    const subscription = await client.listen({ toolsListChanged: true }, { timeout: 5_000 });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    const listenId = connected.requests("subscriptions/listen")[0]?.id;
    expect(listenId).toBeDefined();

    // Other test files may trigger changes too: wait (bounded) for one that arrives after this trigger.
    const triggeredAt = Date.now();
    const triggered = await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
    expect(textOf(triggered)).toContain("tools/list_changed");
    const mine = await waitFor(async () => received.find((r) => r.at >= triggeredAt), { timeoutMs: 5_000, intervalMs: 20 });
    expect(mine, "no notifications/tools/list_changed arrived on the listen stream").toBeDefined();

    expect(received.length).toBeGreaterThanOrEqual(1);
    // The notification names the subscription it belongs to, with the listen request's id as sent.
    expect(received.every((r) => r.subscriptionId === listenId)).toBe(true);

    await subscription.close();
    await expect(subscription.closed).resolves.toBe("local");
    // Closing POSTs notifications/cancelled for the listen id; the server accepts it with 202.
    const cancelled = await waitFor(async () => connected.http.find((h) => h.body?.method === "notifications/cancelled" && h.status !== undefined), {
      timeoutMs: 2_000,
      intervalMs: 20,
    });
    expect(cancelled?.body?.params).toMatchObject({ requestId: listenId });
    expect(cancelled?.status).toBe(202);
    expect(connected.errors).toEqual([]);
  });
});

describe("v2 client: resources, prompts and completion", () => {
  it("resources/read worldcrafter://guide returns the markdown guide", async () => {
    const { client } = await connectModernClient(productUrl());
    const { contents } = await client.readResource({ uri: "worldcrafter://guide" });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: "worldcrafter://guide", mimeType: "text/markdown" });
    expect(contents[0] && "text" in contents[0] ? contents[0].text : "").toContain("# WorldCrafter guide");

    const template = await client.readResource({ uri: "worldcrafter://themes/steampunk" });
    expect(template.contents[0] && "text" in template.contents[0] ? template.contents[0].text : "").toContain("boiler");
  });

  it("reading a resource that does not exist rejects with ResourceNotFoundError (-32602, data {uri})", async () => {
    const { client } = await connectModernClient(productUrl());
    for (const uri of ["worldcrafter://nowhere", "worldcrafter://themes/klingon"]) {
      const error = await protocolErrorOf(client.readResource({ uri }));
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ uri });
      expect(error instanceof ResourceNotFoundError ? error.uri : undefined).toBe(uri);
    }
  });

  it("prompts/get start-fantasy-world fills in the theme; an unknown prompt is a ProtocolError", async () => {
    const { client } = await connectModernClient(productUrl());
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["describe-location", "develop-character", "start-fantasy-world"]);
    const prompt = await client.getPrompt({ name: "start-fantasy-world", arguments: { theme: "steampunk" } });
    expect(prompt.description).toBe("Begin a world-building session");
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]?.content).toMatchObject({ type: "text", text: expect.stringContaining("new steampunk world") });

    const error = await protocolErrorOf(client.getPrompt({ name: "no-such-prompt" }));
    expect(error.code).toBe(-32602);
  });

  it("completion/complete completes a prompt argument and a resource template variable", async () => {
    const { client } = await connectModernClient(productUrl());
    const forPrompt = await client.complete({ ref: { type: "ref/prompt", name: "start-fantasy-world" }, argument: { name: "theme", value: "s" } });
    expect(forPrompt.completion.values).toEqual(["science-fiction", "steampunk"]);
    const forTemplate = await client.complete({
      ref: { type: "ref/resource", uri: "worldcrafter://themes/{theme}" },
      argument: { name: "theme", value: "f" },
    });
    expect(forTemplate.completion.values).toEqual(["fantasy"]);
  });
});

describe("both generations at once on one server", () => {
  it("a 1.x session client (2025-11-25) and a v2 modern client interleave calls; the 1.x keeps its session, the v2 never sees one", async () => {
    const legacy = await connectClient(productUrl(), { name: "gen1" });
    const modern = await connectModernClient(productUrl(), { name: "gen2" });
    const sessionId = legacy.transport.sessionId;
    expect(sessionId).toBeTruthy();
    expect(legacy.transport.protocolVersion).toBe("2025-11-25");
    expect(modern.client.getNegotiatedProtocolVersion()).toBe(MODERN);

    const names = (seed: string) => ({ name: "suggest_names", arguments: { style: "nordic", count: 3, seed } });
    const outline = (name: string) => ({ name: "draft_world_outline", arguments: { name, theme: "horror" } });
    const legacyProgress: number[] = [];
    const modernProgress: number[] = [];

    const [l1, m1, l2, m2, lOutline, mOutline, lTools, mTools, lGuide, mGuide, lPrompt, mPrompt] = await Promise.all([
      legacy.client.callTool(names("alpha")),
      modern.client.callTool(names("alpha")),
      legacy.client.callTool(names("beta")),
      modern.client.callTool(names("beta")),
      legacy.client.callTool(outline("Gen One"), undefined, { onprogress: (p) => legacyProgress.push(p.progress) }),
      modern.client.callTool(outline("Gen Two"), { onprogress: (p) => modernProgress.push(p.progress) }),
      legacy.client.listTools(),
      modern.client.listTools(undefined, { cacheMode: "bypass" }),
      legacy.client.readResource({ uri: "worldcrafter://guide" }),
      modern.client.readResource({ uri: "worldcrafter://guide" }),
      legacy.client.getPrompt({ name: "start-fantasy-world", arguments: { theme: "horror" } }),
      modern.client.getPrompt({ name: "start-fantasy-world", arguments: { theme: "horror" } }),
    ]);

    // Same inputs, same answers, whichever generation asked.
    expect(Names.parse(m1.structuredContent)).toEqual(Names.parse(l1.structuredContent));
    expect(Names.parse(m2.structuredContent)).toEqual(Names.parse(l2.structuredContent));
    expect(Names.parse(m1.structuredContent).names).not.toEqual(Names.parse(m2.structuredContent).names);
    expect(Outline.parse(lOutline.structuredContent).name).toBe("Gen One");
    expect(Outline.parse(mOutline.structuredContent).name).toBe("Gen Two");
    // Each client got its own ten progress events and none of the other's.
    expect(legacyProgress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(modernProgress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(mTools.tools.map((t) => t.name)).toEqual(lTools.tools.map((t) => t.name));
    expect(mGuide.contents).toEqual(lGuide.contents);
    expect(mPrompt.messages).toEqual(lPrompt.messages);

    // The 1.x client still has its session, and the session still works.
    expect(legacy.transport.sessionId).toBe(sessionId);
    await expect(legacy.client.ping()).resolves.toEqual({});
    expect(legacy.transport.sessionId).toBe(sessionId);

    // The v2 client never sent nor received Mcp-Session-Id, and every request was a modern POST.
    expect(modern.transport.sessionId).toBeUndefined();
    expect(modern.http.length).toBeGreaterThanOrEqual(7);
    for (const exchange of modern.http) {
      expect(exchange.method).toBe("POST");
      expect(exchange.requestHeaders.get("mcp-session-id")).toBeNull();
      expect(exchange.requestHeaders.get("mcp-protocol-version")).toBe(MODERN);
      expect(exchange.status).toBe(200);
      expect(exchange.responseHeaders?.get("mcp-session-id")).toBeNull();
    }
    expect(modern.requests("initialize")).toEqual([]);
    expect(modern.errors).toEqual([]);
  });
});
