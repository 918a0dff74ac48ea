/**
 * The official MCP client (@modelcontextprotocol/sdk 1.x) against the real `next start` server:
 * what a real host would see on /api/mcp (product) and /api/conformance/mcp (fixtures).
 */
import { describe, expect, inject, it } from "vitest";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { post } from "../support/mcp-http";
import { newSubject, tokenFor } from "../support/auth";
import { connectClient, mcpErrorOf, textOf } from "../support/sdk-client";
import { invalidArgumentOf } from "../support/tool-errors";
import { PRODUCT_TOOLS } from "../support/product-tools";

const productUrl = () => `${inject("statefulUrl")}/api/mcp`;
const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;
const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

describe("SDK client on /api/mcp: handshake and tools", () => {
  it("connects: negotiates 2025-11-25, reports serverInfo, capabilities and instructions, and issues a session id", async () => {
    const { client, transport } = await connectClient(productUrl());

    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]{16,128}$/);
    expect(client.getServerVersion()).toMatchObject({ name: "worldcrafter", title: "WorldCrafter", version: "0.1.0" });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      // The MCP Apps extension (lib/worlds/host-ui.ts), announced in initialize too.
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
      // 2025-11-25 experimental tasks (docs/tasks.md): tools/call may run as a task.
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(client.getInstructions()).toMatch(/draft_world_outline/);
    await expect(client.ping()).resolves.toEqual({});
  });

  it("lists the product tools in sorted order with JSON Schema 2020-12 input schemas", async () => {
    const { client } = await connectClient(productUrl());
    const { tools, nextCursor } = await client.listTools();

    expect(nextCursor).toBeUndefined();
    expect(tools.map((t) => t.name)).toEqual(PRODUCT_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.$schema).toBe(JSON_SCHEMA_2020_12);
      if (tool.outputSchema) expect(tool.outputSchema.$schema).toBe(JSON_SCHEMA_2020_12);
    }
    // Deterministic: a second listing is identical.
    expect((await client.listTools()).tools).toEqual(tools);
  });

  it("lists the fixture tools in sorted order too", async () => {
    const { client } = await connectClient(fixtureUrl());
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(10);
    expect(names).toEqual([...names].sort());
  });

  it("callTool suggest_names returns structuredContent that matches the published outputSchema", async () => {
    const { client } = await connectClient(productUrl());
    const { tools } = await client.listTools();
    const outputSchema = tools.find((t) => t.name === "suggest_names")?.outputSchema;
    expect(outputSchema).toBeDefined();

    const args = { style: "dwarvish", kind: "place", count: 4, seed: "e2e" };
    const result = await client.callTool({ name: "suggest_names", arguments: args });

    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent;
    expect(structured).toMatchObject({ style: "dwarvish", kind: "place" });
    const names = (structured as { names: string[] }).names;
    expect(names).toHaveLength(4);
    expect(textOf(result)).toContain(names[0]);
    const validate = new AjvJsonSchemaValidator().getValidator(outputSchema ?? {});
    expect(validate(structured)).toMatchObject({ valid: true });
    // Deterministic: the same seed gives the same names.
    expect((await client.callTool({ name: "suggest_names", arguments: args })).structuredContent).toEqual(structured);
  });

  it("invalid tool arguments (2025-11-25) come back as an isError result naming each failing path, for the model to correct", async () => {
    const { client } = await connectClient(productUrl());
    await client.listTools(); // the client then checks structuredContent against the outputSchema, error envelope included
    const result = await client.callTool({ name: "suggest_names", arguments: { style: "klingon", count: 99 } });

    expect(result.isError).toBe(true);
    const message = invalidArgumentOf(result)?.message;
    expect(message).toMatch(/^Invalid arguments for tool suggest_names: /);
    expect(message).toMatch(/\bstyle: .*\bcount: /);
    expect(result.content).toEqual([{ type: "text", text: message }]);
  });

  it("an unknown tool rejects with McpError -32602", async () => {
    const { client } = await connectClient(productUrl());
    const error = await mcpErrorOf(client.callTool({ name: "no_such_tool", arguments: {} }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("no_such_tool");
    expect(error.message).toContain("tools/list names the tools");
    expect(error.message).not.toContain("Did you mean");
    // A near miss gets the registered name it was probably meant to be.
    const typo = await mcpErrorOf(client.callTool({ name: "create_wrld", arguments: {} }));
    expect(typo.code).toBe(-32602);
    expect(typo.message).toContain("Did you mean create_world?");
  });

  it("progress: draft_world_outline reports 10 increasing progress notifications with total 10", async () => {
    const { client } = await connectClient(productUrl());
    const seen: Progress[] = [];
    const result = await client.callTool({ name: "draft_world_outline", arguments: { name: "Eldmere", theme: "steampunk" } }, undefined, {
      onprogress: (p) => seen.push(p),
    });

    expect(seen).toHaveLength(10);
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const p of seen) expect(p.total).toBe(10);
    expect(result.structuredContent).toMatchObject({ name: "Eldmere", theme: "steampunk" });
    expect((result.structuredContent as { sections: unknown[] }).sections).toHaveLength(10);
  });
});

describe("SDK client: output schemas (fixture test_structured)", () => {
  it("structuredContent that matches the outputSchema is returned: {value: 2} gives {doubled: 4}", async () => {
    const { client } = await connectClient(fixtureUrl());
    await client.listTools(); // lets the SDK validate structuredContent against the outputSchema too
    const result = await client.callTool({ name: "test_structured", arguments: { value: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ doubled: 4 });
  });

  it("structuredContent that breaks the tool's own outputSchema is a server bug: JSON-RPC error -32603, not a tool result", async () => {
    const { client } = await connectClient(fixtureUrl());
    const error = await mcpErrorOf(client.callTool({ name: "test_structured", arguments: { value: 2, lie: true } }));
    expect(error.code).toBe(-32603);
  });
});

describe("SDK client: logging", () => {
  it("setLoggingLevel debug lets the tool's log notifications through; error silences them", async () => {
    const received: LoggingMessageNotification["params"][] = [];
    const { client } = await connectClient(fixtureUrl(), {
      setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params)),
    });

    await client.setLoggingLevel("debug");
    const loud = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
    expect(loud.isError).toBeFalsy();
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(received.map((m) => m.data)).toEqual(
      expect.arrayContaining(["Tool execution started", "Tool processing data", "Tool execution completed"]),
    );
    expect(received.every((m) => m.level === "info")).toBe(true);

    received.length = 0;
    await client.setLoggingLevel("error");
    const quiet = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
    expect(quiet.isError).toBeFalsy();
    expect(received).toEqual([]);
  });

  it("an unexpected tool failure is logged at error with its reference, once the client chose a level", async () => {
    const received: LoggingMessageNotification["params"][] = [];
    const { client } = await connectClient(fixtureUrl(), {
      setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params)),
    });
    await client.callTool({ name: "test_throw", arguments: { message: "unasked" } });
    expect(received).toEqual([]);

    await client.setLoggingLevel("error");
    const failed = await client.callTool({ name: "test_throw", arguments: { message: "the kiln cracked" } });
    expect(failed.isError).toBe(true);
    const reference = ((failed.structuredContent as { error: { id: string } }).error).id;
    expect(received).toEqual([{ level: "error", data: `Internal error (reference ${reference}); the server log has the details.` }]);
  });
});

describe("SDK client: resources", () => {
  it("lists and reads the guide resource", async () => {
    const { client } = await connectClient(productUrl());
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: "worldcrafter://guide", name: "guide", mimeType: "text/markdown" }));

    const { contents } = await client.readResource({ uri: "worldcrafter://guide" });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: "worldcrafter://guide", mimeType: "text/markdown" });
    expect((contents[0] as { text: string }).text).toContain("WorldCrafter guide");
  });

  it("lists the theme template and reads a resource through it", async () => {
    const { client } = await connectClient(productUrl());
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: "worldcrafter://themes/{theme}", name: "theme-notes" }));

    const { contents } = await client.readResource({ uri: "worldcrafter://themes/steampunk" });
    expect(contents).toEqual([expect.objectContaining({ uri: "worldcrafter://themes/steampunk", mimeType: "text/markdown" })]);
    expect((contents[0] as { text: string }).text).toMatch(/^# steampunk/);
  });

  it("an unknown resource uri rejects with McpError -32002 carrying the uri", async () => {
    const { client } = await connectClient(productUrl());
    for (const uri of ["worldcrafter://nowhere", "worldcrafter://themes/opera"]) {
      const error = await mcpErrorOf(client.readResource({ uri }));
      expect(error.code).toBe(-32002);
      expect(error.data).toEqual({ uri });
      // The message says where to look, not only that it failed.
      expect(error.message).toContain("resources/list and resources/templates/list name what can be read");
    }
    const theme = await mcpErrorOf(client.readResource({ uri: "worldcrafter://themes/scifi" }));
    expect(theme.message).toContain("Themes with notes: fantasy, science-fiction, steampunk, horror, post-apocalyptic.");
  });

  it("subscribes to and unsubscribes from a resource", async () => {
    const { client } = await connectClient(productUrl());
    await expect(client.subscribeResource({ uri: "worldcrafter://guide" })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: "worldcrafter://guide" })).resolves.toEqual({});
    const error = await mcpErrorOf(client.subscribeResource({ uri: "worldcrafter://nowhere" }));
    expect(error.code).toBe(-32002);
  });

  // Outside audit: 60,000 subscriptions were kept in one session for its lifetime (up to a day).
  it("follows at most 100 resources in a session; a repeat costs nothing, an unsubscribe frees a place", async () => {
    const { client } = await connectClient(productUrl(), { token: await tokenFor(inject("statefulUrl"), newSubject("subscriptions")) });
    for (let i = 0; i < 100; i++) await client.subscribeResource({ uri: `world://w${i}` });
    await expect(client.subscribeResource({ uri: "world://w0" })).resolves.toEqual({});
    const full = await mcpErrorOf(client.subscribeResource({ uri: "world://w100" }));
    expect(full.code).toBe(-32602);
    expect(full.message).toMatch(/at most 100 resources at once; unsubscribe from one first/);
    await client.unsubscribeResource({ uri: "world://w7" });
    await expect(client.subscribeResource({ uri: "world://w100" })).resolves.toEqual({});
  });
});

describe("SDK client: prompts and completion", () => {
  it("lists the prompt and gets it with an argument", async () => {
    const { client } = await connectClient(productUrl());
    const { prompts } = await client.listPrompts();
    expect(prompts).toContainEqual(
      expect.objectContaining({
        name: "start-fantasy-world",
        arguments: [expect.objectContaining({ name: "theme", required: false })],
      }),
    );

    const got = await client.getPrompt({ name: "start-fantasy-world", arguments: { theme: "horror" } });
    expect(got.messages).toHaveLength(1);
    expect(got.messages[0]?.role).toBe("user");
    expect(got.messages[0]?.content).toMatchObject({ type: "text" });
    expect((got.messages[0]?.content as { text: string }).text).toContain("horror");
  });

  it("a missing required prompt argument rejects with McpError -32602 naming it", async () => {
    const { client } = await connectClient(fixtureUrl());
    const ok = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
    expect((ok.messages[0]?.content as { text: string }).text).toBe("Prompt with arguments: arg1='a', arg2='b'");

    const error = await mcpErrorOf(client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a" } }));
    expect(error.code).toBe(-32602);
    const paths = (error.data as { path: (string | number)[] }[]).map((issue) => issue.path);
    expect(paths).toEqual([["arg2"]]);
  });

  it("completes the prompt argument and the resource template variable", async () => {
    const { client } = await connectClient(productUrl());
    const forPrompt = await client.complete({
      ref: { type: "ref/prompt", name: "start-fantasy-world" },
      argument: { name: "theme", value: "sci" },
    });
    expect(forPrompt.completion.values).toEqual(["science-fiction"]);
    expect(forPrompt.completion.hasMore).toBe(false);

    const forTemplate = await client.complete({
      ref: { type: "ref/resource", uri: "worldcrafter://themes/{theme}" },
      argument: { name: "theme", value: "ho" },
    });
    expect(forTemplate.completion.values).toEqual(["horror"]);
  });
});

describe("SDK client: session termination", () => {
  it("terminateSession ends the session: a later request with the old id is answered 404", async () => {
    const { client, transport } = await connectClient(productUrl());
    const sessionId = transport.sessionId;
    expect(sessionId).toBeDefined();
    await client.listTools();

    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();

    const res = await post(
      productUrl(),
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "mcp-session-id": sessionId ?? "", "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });
});
