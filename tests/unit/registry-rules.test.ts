/**
 * The registry refuses, at start-up, definitions that would publish something clients cannot use
 * or that a later definition would silently replace. An outside reviewer built a second app on
 * lib/mcp and found each of these accepted: duplicates replaced one another, an x-mcp-header under
 * `items` was ignored (clients MUST drop such a tool), `inputSchema: {"type":"string"}` and `{}`
 * for z.date() were published, and relative resource URIs and empty names were listed.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type ToolDefinition,
  type WidgetDefinition,
} from "../../lib/mcp";
import { Registry } from "../../lib/mcp/registry";
import { worldcrafterServer } from "../../lib/worlds/server-definition";
import { conformanceFixtureServer } from "../../lib/conformance/fixture-server";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { ...defineTool({ name, description: `Tool ${name}`, input: z.object({}), handler: () => text(name) }), ...extra };
}

/** A tool publishing `inputSchema` as given (validation still runs on an empty object). */
function publishing(inputJsonSchema: Record<string, unknown>): ToolDefinition {
  return tool("annotated", { inputJsonSchema: inputJsonSchema as ToolDefinition["inputJsonSchema"] });
}

const resource = (uri: string, name = "r") => defineResource({ uri, name, read: () => [{ uri, text: "…" }] });
const template = (uriTemplate: string, name = "t") => defineResourceTemplate({ uriTemplate, name, read: (uri) => [{ uri, text: "…" }] });
const prompt = (name: string) => definePrompt({ name, get: () => ({ messages: [] }) });

describe("registration refuses duplicates", () => {
  it("two tools with one name", () => {
    expect(() => new Registry({ tools: [tool("echo"), tool("echo")] })).toThrow("Tool echo is registered twice");
  });

  it("two resources with one URI", () => {
    expect(() => new Registry({ resources: [resource("test://a", "first"), resource("test://a", "second")] })).toThrow("Resource test://a is registered twice");
  });

  it("two prompts with one name", () => {
    expect(() => new Registry({ prompts: [prompt("greet"), prompt("greet")] })).toThrow("Prompt greet is registered twice");
  });

  it("two resource templates with one uriTemplate", () => {
    expect(() => new Registry({ resourceTemplates: [template("test://{id}", "a"), template("test://{id}", "b")] })).toThrow("Resource template test://{id} is registered twice");
  });

  it("a resource at the URI of a tool's widget", () => {
    const widget: WidgetDefinition = { name: "card", description: "A card", html: "<p>card</p>" };
    const withWidget = tool("show", { ui: { widget } });
    const uri = new Registry({ tools: [withWidget] }).listResources().items[0]?.uri as string;
    expect(() => new Registry({ tools: [withWidget], resources: [resource(uri)] })).toThrow(`Resource ${uri} is registered twice`);
  });

  it("but tools sharing one widget bring its resource once, and add* at run time replaces", () => {
    const widget: WidgetDefinition = { name: "card", description: "A card", html: "<p>card</p>" };
    const registry = new Registry({ tools: [tool("a", { ui: { widget } }), tool("b", { ui: { widget } })], prompts: [prompt("p")] });
    expect(registry.listResources().items).toHaveLength(1);
    const replacement = tool("a", { description: "Replaced" });
    registry.addTool(replacement);
    expect(registry.getTool("a")?.definition).toBe(replacement);
    registry.addPrompt(prompt("p"));
    expect(registry.listPrompts().items).toHaveLength(1);
  });
});

describe("registration refuses an x-mcp-header a client must reject", () => {
  const header = { type: "string", "x-mcp-header": "Region" };
  it.each([
    ["under items", { type: "object", properties: { regions: { type: "array", items: header } } }, "#/properties/regions/items"],
    ["under prefixItems", { type: "object", properties: { pair: { type: "array", prefixItems: [header] } } }, "#/properties/pair/prefixItems/0"],
    ["under anyOf", { type: "object", properties: { region: { anyOf: [header, { type: "null" }] } } }, "#/properties/region/anyOf/0"],
    ["under oneOf", { type: "object", properties: { region: { oneOf: [header] } } }, "#/properties/region/oneOf/0"],
    ["under allOf at the root", { type: "object", allOf: [{ properties: { region: header } }] }, "#/allOf/0/properties/region"],
    ["under additionalProperties", { type: "object", additionalProperties: header }, "#/additionalProperties"],
    ["under patternProperties", { type: "object", patternProperties: { "^r": header } }, "#/patternProperties/^r"],
    ["under if/then", { type: "object", if: { properties: { a: { const: 1 } } }, then: { properties: { region: header } } }, "#/then/properties/region"],
    ["in $defs (reached by $ref)", { type: "object", properties: { region: { $ref: "#/$defs/region" } }, $defs: { region: header } }, "#/$defs/region"],
    ["under a nested object's items", { type: "object", properties: { a: { type: "object", properties: { b: { type: "array", items: header } } } } }, "#/properties/a/properties/b/items"],
    ["on the root itself", { type: "object", "x-mcp-header": "Region" }, "#"],
  ])("%s", (_label, schema, pointer) => {
    expect(() => new Registry({ tools: [publishing(schema)] })).toThrow(
      `x-mcp-header at ${pointer} is not on a property reached from the inputSchema root through "properties" alone; clients drop such a tool (tool annotated;`,
    );
  });

  it("from a zod schema: an annotated array element", () => {
    const def = defineTool({
      name: "regions",
      description: "Regions",
      input: z.object({ regions: z.array(z.string().meta({ "x-mcp-header": "Region" })) }),
      handler: () => text("ok"),
    });
    expect(() => new Registry({ tools: [def] })).toThrow("x-mcp-header at #/properties/regions/items is not on a property");
  });

  it("accepts properties reached through properties alone, at any depth, and the name or a value that only looks like one", () => {
    const schema = {
      type: "object",
      properties: {
        region: header,
        target: { type: "object", properties: { zone: { type: "integer", "x-mcp-header": "Zone" } } },
        "x-mcp-header": { type: "string" },
        options: { type: "object", default: { "x-mcp-header": "NotAnAnnotation" }, examples: [{ "x-mcp-header": "Nor" }] },
      },
    };
    const registry = new Registry({ tools: [publishing(schema)] });
    expect(registry.getTool("annotated")?.headerParams).toEqual([
      { header: "Region", path: ["region"] },
      { header: "Zone", path: ["target", "zone"] },
    ]);
  });
});

describe("registration refuses schemas that are not JSON Schema objects", () => {
  const as = (schema: z.ZodType) => schema as unknown as z.ZodObject<z.ZodRawShape>;
  it.each([
    ["z.string()", z.string(), '"type": "string"'],
    ["z.array()", z.array(z.string()), '"type": "array"'],
    ["z.union() of objects", z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]), 'no "type" (anyOf)'],
  ])("an input of %s", (_label, input, found) => {
    expect(() => new Registry({ tools: [tool("bad_input", { input: as(input) })] })).toThrow(
      `Tool bad_input: its inputSchema must be a JSON Schema object ("type": "object" at the root; use z.object), not ${found}`,
    );
  });

  it("an inputJsonSchema that is not an object", () => {
    expect(() => new Registry({ tools: [publishing({ type: "string" })] })).toThrow('Tool annotated: its inputSchema must be a JSON Schema object ("type": "object" at the root; use z.object), not "type": "string"');
  });

  it("an output of z.array(), though the published outputSchema wraps it in an object with the error envelope", () => {
    expect(() => new Registry({ tools: [tool("bad_output", { output: as(z.array(z.number())) })] })).toThrow(
      'Tool bad_output: its outputSchema must be a JSON Schema object ("type": "object" at the root; use z.object), not "type": "array"',
    );
  });
});

describe("registration refuses zod types JSON Schema cannot express", () => {
  it.each([
    ["z.date()", z.date(), "Date cannot be represented in JSON Schema"],
    ["z.bigint()", z.bigint(), "BigInt cannot be represented in JSON Schema"],
    ["z.map()", z.map(z.string(), z.string()), "Map cannot be represented in JSON Schema"],
    ["z.set()", z.set(z.string()), "Set cannot be represented in JSON Schema"],
    ["z.symbol()", z.symbol(), "Symbols cannot be represented in JSON Schema"],
    ["z.custom()", z.custom<string>((v) => typeof v === "string"), "Custom types cannot be represented in JSON Schema"],
    ["z.instanceof()", z.instanceof(Uint8Array), "Custom types cannot be represented in JSON Schema"],
  ])("%s in an input", (_label, field, reason) => {
    expect(() => new Registry({ tools: [tool("when", { input: z.object({ field }) })] })).toThrow(
      `Tool when: its input schema has a type JSON Schema cannot express (${reason})`,
    );
  });

  it("z.date() or a transform in an output", () => {
    expect(() => new Registry({ tools: [tool("when", { output: z.object({ at: z.date() }) })] })).toThrow("Tool when: its output schema has a type JSON Schema cannot express (Date cannot be represented in JSON Schema)");
    expect(() => new Registry({ tools: [tool("when", { output: z.object({ n: z.string().transform(Number) }) })] })).toThrow("Tool when: its output schema has a type JSON Schema cannot express (Transforms cannot be represented in JSON Schema)");
  });

  it("while every WorldCrafter and conformance fixture tool, resource and prompt registers", () => {
    for (const server of [worldcrafterServer, conformanceFixtureServer]) {
      const registry = new Registry(server.contents);
      expect(registry.listTools().items).toHaveLength(server.contents.tools?.length ?? 0);
      expect(registry.listPrompts().items).toHaveLength(server.contents.prompts?.length ?? 0);
      expect(registry.listResourceTemplates().items).toHaveLength(server.contents.resourceTemplates?.length ?? 0);
      for (const descriptor of registry.listTools().items) expect(descriptor.inputSchema).toMatchObject({ type: "object" });
    }
  });
});

describe("registration refuses URIs that are not absolute and names that are empty or hold control characters", () => {
  it.each(["guide", "/guide", "//host/guide", "", "1x://guide", " test://guide", "test://gu ide", "test://guide\n", "test://gu\u0000ide"])("resource URI %j", (uri) => {
    expect(() => new Registry({ resources: [resource(uri)] })).toThrow(`Resource URI ${JSON.stringify(uri)} is not an absolute URI`);
  });

  it.each(["{id}", "notes/{id}", "/notes/{id}", "test://{id} notes"])("resource template %j", (uriTemplate) => {
    expect(() => new Registry({ resourceTemplates: [template(uriTemplate)] })).toThrow(`Resource template ${JSON.stringify(uriTemplate)} does not make absolute URIs`);
  });

  it.each(["test://s{?q,r}", "test://{a}/{b*}", "test://s{/seg}", "test://s/{a:3}", "test://{#frag}"])("resource template %j with an operator it does not read", (uriTemplate) => {
    expect(() => new Registry({ resourceTemplates: [template(uriTemplate)] })).toThrow(`Resource template ${uriTemplate}: only {var} (one path segment) and {+var}`);
  });

  it("accepts the URIs resources use", () => {
    const uris = ["test://a", "worldcrafter://guide", "ui://widget/card-0123abcd.html", "https://example.com/a?b=c#d", "urn:isbn:0451450523", "file:///tmp/a.txt"];
    expect(new Registry({ resources: uris.map((u) => resource(u)), resourceTemplates: [template("{+base}/notes/{id}")] }).listResources().items).toHaveLength(uris.length);
  });

  it.each([
    ["resource", () => new Registry({ resources: [resource("test://a", "")] }), "Resource test://a has an empty name"],
    ["resource", () => new Registry({ resources: [resource("test://a", "two\nlines")] }), 'Resource test://a has a name with a control character: "two\\nlines"'],
    ["template", () => new Registry({ resourceTemplates: [template("test://{id}", "  ")] }), "Resource template test://{id} has an empty name"],
    ["template", () => new Registry({ resourceTemplates: [template("test://{id}", "tab\there")] }), 'Resource template test://{id} has a name with a control character: "tab\\there"'],
    ["prompt", () => new Registry({ prompts: [prompt("")] }), 'Prompt "" has an empty name'],
    ["prompt", () => new Registry({ prompts: [prompt("bell\u0007")] }), 'Prompt "bell\\u0007" has a name with a control character: "bell\\u0007"'],
    ["prompt", () => new Registry({ prompts: [prompt("c1\u0085")] }), "has a name with a control character"],
  ])("a %s name", (_kind, build, message) => {
    expect(build).toThrow(message);
  });
});

// Outside probe (2026-11-29), building another app on the core: a prompt's arguments given as
// something other than a z.object failed with "Cannot convert undefined or null to object".
describe("a prompt's arguments", () => {
  it("that are not a z.object are refused naming the prompt", () => {
    const loose = { ...prompt("brief"), arguments: z.string() } as unknown as ReturnType<typeof prompt>;
    expect(() => new Registry({ prompts: [loose] })).toThrow("Prompt brief: its arguments must be a z.object of string fields");
  });
});
