import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type CallToolResult, type HandlerContext } from "../../lib/mcp";
import { withWidgetPayloadsForUiHosts } from "../../lib/worlds/host-ui";
import { worldcrafterServer } from "../../lib/worlds/server-definition";

/**
 * What this file proves: the wrapper that leaves widget-only `_meta` out for hosts without
 * widgets keeps a synchronous tool synchronous (the core then answers it with no promise hop and
 * no time-limit timer), and strips the same keys from synchronous and asynchronous results; and
 * ChatGPT's own result keys (`openai/closeWidget`) go to ChatGPT alone.
 */
const RESULT: CallToolResult = {
  content: [{ type: "text", text: "Emberfall" }],
  structuredContent: { id: "w_1" },
  _meta: { "worldcrafter/world": { id: "w_1", characters: [] }, "mcp/www_authenticate": ["Bearer"], "openai/closeWidget": true },
};

const tool = (handler: () => CallToolResult | Promise<CallToolResult>) =>
  withWidgetPayloadsForUiHosts(defineTool({ name: "t", description: "t", input: z.object({}), handler }));

/** What the wrapper reads of a ctx: the client's extensions and the request's `_meta`. */
const textOnlyHost = { clientExtensions: {}, meta: {} } as unknown as HandlerContext;
const chatGpt = { clientExtensions: {}, meta: { "openai/userAgent": "ChatGPT" } } as unknown as HandlerContext;
const mcpApps = { clientExtensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }, meta: {} } as unknown as HandlerContext;

describe("withWidgetPayloadsForUiHosts", () => {
  it("answers a synchronous handler synchronously, without the widget-only keys for a text-only host", () => {
    const out = tool(() => RESULT).handler({}, textOnlyHost);
    expect(out).not.toBeInstanceOf(Promise);
    expect((out as CallToolResult)._meta).toEqual({ "mcp/www_authenticate": ["Bearer"] });
  });

  it("keeps every key for ChatGPT, and all but ChatGPT's own for an MCP Apps host", () => {
    expect(tool(() => RESULT).handler({}, chatGpt)).toEqual(RESULT);
    expect((tool(() => RESULT).handler({}, mcpApps) as CallToolResult)._meta).toEqual({ "worldcrafter/world": { id: "w_1", characters: [] }, "mcp/www_authenticate": ["Bearer"] });
  });

  it("strips the same keys from an asynchronous handler's result", async () => {
    const out = tool(async () => RESULT).handler({}, textOnlyHost);
    expect(out).toBeInstanceOf(Promise);
    expect((await out)._meta).toEqual({ "mcp/www_authenticate": ["Bearer"] });
  });

  it("leaves WorldCrafter's synchronous tools synchronous as registered", () => {
    const suggest = worldcrafterServer.contents.tools?.find((t) => t.name === "suggest_names");
    expect(suggest).toBeDefined();
    const out = suggest?.handler({ style: "elvish", kind: "person", count: 2 }, textOnlyHost);
    expect(out).not.toBeInstanceOf(Promise);
    expect((out as CallToolResult).structuredContent).toMatchObject({ style: "elvish", names: expect.any(Array) });
  });
});
