/**
 * What a tool, resource, resource template or prompt must be to be registered. Each rule throws
 * an Error naming the item and the rule, so a definition that would publish something clients
 * cannot use stops the server at start-up instead of failing on a client's request. (The
 * `x-mcp-header` rules are in header-params.ts, JSON Schema expressibility in json-schema.ts.)
 */

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Any control character (C0, DEL, C1), tab and line breaks included: a name is one line of text. */
const CONTROL = /\p{Cc}/u;
/** RFC 3986 §3.1: an absolute URI starts with its scheme. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** A URI holds no spaces or control characters (RFC 3986 §2); `new URL` would quietly drop some. */
const NOT_IN_URI = /[\s\p{Cc}]/u;
/** A template's expressions (uri-template.ts), replaced by a value to check the URIs it makes. */
const EXPRESSION = /\{[^}]*\}/g;

export function checkToolName(name: string): void {
  if (!TOOL_NAME.test(name)) throw new Error(`Invalid tool name "${name}": 1-128 of A-Z a-z 0-9 _ - . (server/tools §tool names)`);
}

/** Resources, templates and prompts: a name a client can show and a user can pick (server/resources, server/prompts). */
export function checkName(item: string, name: string): void {
  if (name.trim().length === 0) throw new Error(`${item} has an empty name`);
  if (CONTROL.test(name)) throw new Error(`${item} has a name with a control character: ${JSON.stringify(name)}`);
}

/** A resource's URI is an absolute URI (server/resources §resource: `uri` is a URI, RFC 3986). */
export function checkResourceUri(uri: string): void {
  if (!SCHEME.test(uri) || NOT_IN_URI.test(uri) || !URL.canParse(uri)) {
    throw new Error(`Resource URI ${JSON.stringify(uri)} is not an absolute URI (a scheme, then no spaces or control characters; RFC 3986)`);
  }
}

/**
 * A template expands to absolute URIs: its text with each expression filled in must be one. A
 * template that starts with a reserved expression (`{+base}/…`) gets its scheme from the value;
 * a simple `{var}` cannot supply one (RFC 6570 §3.2.2 percent-encodes its ":").
 */
export function checkTemplateUri(uriTemplate: string): void {
  const example = uriTemplate.replace(EXPRESSION, "x");
  const schemeFromValue = uriTemplate.startsWith("{+");
  if ((!schemeFromValue && !SCHEME.test(example)) || NOT_IN_URI.test(example) || (!schemeFromValue && !URL.canParse(example))) {
    throw new Error(`Resource template ${JSON.stringify(uriTemplate)} does not make absolute URIs (a scheme, then no spaces or control characters; RFC 3986)`);
  }
}

/**
 * A tool's inputSchema, and the shape of its successful structuredContent, are JSON Schema objects
 * (`"type": "object"` at the root): 2025-11-25 schema Tool.inputSchema/outputSchema and
 * CallToolResult.structuredContent (an object). 2026-07-28 lets outputSchema and structuredContent
 * be anything, but one descriptor is published to every revision this server speaks, and the error
 * envelope of isError results is an object too.
 */
export function checkObjectRoot(tool: string, field: "inputSchema" | "outputSchema", schema: Record<string, unknown>): void {
  if (schema.type !== "object") {
    const found = schema.type === undefined ? `no "type" (${Object.keys(schema).filter((k) => k !== "$schema").join(", ") || "empty"})` : `"type": ${JSON.stringify(schema.type)}`;
    throw new Error(`Tool ${tool}: its ${field} must be a JSON Schema object ("type": "object" at the root; use z.object), not ${found}`);
  }
}

/**
 * Two definitions under one tool name, resource URI, template or prompt name: a later tool,
 * resource or prompt would silently replace the earlier one, and both templates would be listed.
 */
export function refuseDuplicate(item: string): never {
  throw new Error(`${item} is registered twice; each must be defined once`);
}
