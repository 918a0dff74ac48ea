/**
 * RegistryOptions.schemas: the tools' JSON Schemas made when the deployment was built are
 * published as given, with nothing converted for them; anything they cannot stand for (a tool
 * added at run time, one whose output appeared or went since, a name not in them) is converted then.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, publishedSchemasOf, type PublishedSchemas, type ToolDefinition } from "../../lib/mcp";
import { Registry } from "../../lib/mcp/registry";

const input = z.object({ text: z.string() });
const echo = (name: string, withOutput = true): ToolDefinition =>
  withOutput
    ? defineTool({
        name,
        description: `Tool ${name}`,
        input,
        output: z.object({ echoed: z.string() }),
        handler: ({ text }) => ({ content: [{ type: "text" as const, text }], structuredContent: { echoed: text } }),
      })
    : defineTool({ name, description: `Tool ${name}`, input, handler: ({ text }) => ({ content: [{ type: "text" as const, text }] }) });

/** Schemas no converter would make from `echo`, so a descriptor shows which one it carries. */
const MARKED = {
  inputSchema: { type: "object", properties: { marked: { type: "string" } } },
  outputSchema: { type: "object", properties: { markedOut: { type: "string" } } },
};

const descriptor = (registry: Registry, name: string) => registry.listTools().items.find((t) => t.name === name);

describe("a registry given the tools' schemas", () => {
  it("publishes them as given for the tools it is constructed with", () => {
    const registry = new Registry({ tools: [echo("echo")] }, 100, { schemas: { echo: MARKED } });
    expect(descriptor(registry, "echo")).toMatchObject(MARKED);
    // Calls still validate with the zod schema, whatever was published.
    expect(registry.getTool("echo")?.definition.input.safeParse({ text: "hi" }).success).toBe(true);
  });

  it("publishes what the converter makes when given what publishedSchemasOf made", () => {
    const tools = [echo("echo"), echo("plain", false)];
    const given = new Registry({ tools }, 100, { schemas: JSON.parse(JSON.stringify(publishedSchemasOf(tools))) as PublishedSchemas });
    expect(given.listToolsResult()).toEqual(new Registry({ tools }).listToolsResult());
  });

  it("converts a tool added at run time, though its name is in them", () => {
    const registry = new Registry({ tools: [echo("echo")] }, 100, { schemas: { echo: MARKED } });
    registry.addTool(echo("echo"));
    expect(descriptor(registry, "echo")?.inputSchema).toEqual(publishedSchemasOf([echo("echo")]).echo?.inputSchema);
  });

  it("converts a tool whose output appeared or went since they were made", () => {
    const gainedOutput = new Registry({ tools: [echo("echo")] }, 100, { schemas: { echo: { inputSchema: MARKED.inputSchema } } });
    expect(descriptor(gainedOutput, "echo")).toEqual(expect.objectContaining(publishedSchemasOf([echo("echo")]).echo));
    const lostOutput = new Registry({ tools: [echo("echo", false)] }, 100, { schemas: { echo: MARKED } });
    expect(descriptor(lostOutput, "echo")?.outputSchema).toBeUndefined();
    expect(descriptor(lostOutput, "echo")?.inputSchema).toEqual(publishedSchemasOf([echo("echo")]).echo?.inputSchema);
  });

  it("takes only their own entries: a tool named constructor is converted", () => {
    const registry = new Registry({ tools: [echo("constructor", false)] }, 100, { schemas: {} });
    expect(descriptor(registry, "constructor")?.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
  });

  it("checks given schemas as it checks converted ones", () => {
    expect(() => new Registry({ tools: [echo("echo", false)] }, 100, { schemas: { echo: { inputSchema: { type: "string" } } } })).toThrow(
      'Tool echo: its inputSchema must be a JSON Schema object',
    );
  });
});
