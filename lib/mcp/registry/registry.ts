import type { ZodType } from "zod";
import { compileUriTemplate, type UriTemplate } from "./uri-template";
import { findHeaderParams, type HeaderParam } from "./header-params";
import { preserialize } from "../../jsonrpc/preserialized";
import { NO_AUTH, type SecurityScheme } from "../policy/access";
import { pageAt, paginate, type Page } from "./pagination";
import { toolUiMeta, widgetResource } from "./widgets";
import { ownEntry } from "../protocol/own-property";
import { publishedSchemaOf, type PublishedSchemas, type PublishedToolSchemas } from "./published-schemas";
import { checkName, checkObjectRoot, checkResourceUri, checkTemplateUri, checkToolName, refuseDuplicate } from "./rules";
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from "./definitions";

export interface RegistryContents {
  tools?: readonly ToolDefinition[];
  resources?: readonly ResourceDefinition[];
  resourceTemplates?: readonly ResourceTemplateDefinition[];
  prompts?: readonly PromptDefinition[];
}

export type ListKind = "tools" | "resources" | "prompts";

/**
 * What a definition under a name (or URI) already taken does: the contents given at construction
 * refuse it; the run-time add* methods replace the earlier one (a tool switched back on, a fixture
 * that announces a list change by adding itself again).
 */
type SameKey = "refuse" | "replace";

export interface CompiledTool {
  definition: ToolDefinition;
  security: readonly SecurityScheme[];
  descriptor: Record<string, unknown>;
  /** Parameters clients mirror into Mcp-Param-* headers (2026-07-28). */
  headerParams: HeaderParam[];
}

export interface CompiledTemplate {
  definition: ResourceTemplateDefinition;
  matcher: UriTemplate;
  descriptor: Record<string, unknown>;
}

export type ResourceMatch =
  | { kind: "static"; resource: ResourceDefinition }
  | { kind: "template"; template: CompiledTemplate; variables: Record<string, string> };

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Drop undefined fields so descriptors serialize without noise. */
function compact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The schemes a tool is published and enforced with. Where every request must carry a token
 * (RegistryOptions.tokenRequired), a `noauth` tool is refused anonymously at the edge (401) all
 * the same: it is published as needing a token, any token (`oauth2` without scopes), so a host
 * does not call it anonymously and meet a 401 (an outside review: ChatGPT was told `noauth`).
 */
function securityOf(def: ToolDefinition, tokenRequired: boolean): readonly SecurityScheme[] {
  const declared = def.security ?? NO_AUTH;
  if (!tokenRequired || !declared.some((s) => s.type === "noauth")) return declared;
  return [{ type: "oauth2", scopes: [] }];
}

/**
 * `given` (made when the deployment was built) when it has the shape `def` publishes, an
 * outputSchema exactly when the tool has an output; else converted now, so a tool that gained or
 * lost its output since the schemas were made is not published with the other shape.
 */
function schemasFor(def: ToolDefinition, given: PublishedToolSchemas | undefined): PublishedToolSchemas {
  if (given && (given.outputSchema !== undefined) === (def.output !== undefined)) return given;
  return publishedSchemaOf(def);
}

function compileTool(def: ToolDefinition, tokenRequired: boolean, given: PublishedToolSchemas | undefined): CompiledTool {
  checkToolName(def.name);
  const { inputSchema, outputSchema } = schemasFor(def, given);
  checkObjectRoot(def.name, "inputSchema", inputSchema);
  const security = securityOf(def, tokenRequired);
  // The Apps SDK reads securitySchemes at the top level; older hosts look in _meta: publish both.
  const descriptor = compact({
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema,
    outputSchema,
    annotations: def.annotations,
    // Tool.execution (2025-11-25 server/tools): whether the call may run as a task. Only that
    // revision's lists carry it (methods/list-by-revision.ts).
    execution: def.execution ? { taskSupport: def.execution.taskSupport } : undefined,
    icons: def.icons,
    securitySchemes: security,
    _meta: { ...def.meta, ...(def.ui ? toolUiMeta(def.name, def.ui) : {}), securitySchemes: security },
  });
  return { definition: def, descriptor, security, headerParams: findHeaderParams(def.name, inputSchema) };
}

function promptArguments(def: PromptDefinition): Record<string, unknown>[] | undefined {
  if (!def.arguments) return undefined;
  // Typed as a z.object, but a JavaScript caller (or a cast) can hand anything: name the prompt.
  const shape = (def.arguments as { shape?: unknown }).shape;
  if (typeof shape !== "object" || shape === null) throw new Error(`Prompt ${def.name}: its arguments must be a z.object of string fields (server/prompts)`);
  return Object.entries(def.arguments.shape).map(([name, schema]) =>
    compact({
      name,
      description: (schema as ZodType).description,
      required: !(schema as ZodType).safeParse(undefined).success,
    }),
  );
}

/**
 * Tools, resources, resource templates and prompts, defined once. Descriptors (with their JSON
 * Schema) and list pages are computed when the contents change, never per request, and lists are
 * in a deterministic order (by name; resources by URI) so clients can cache and diff them.
 */
export interface RegistryOptions {
  /** Every request carries a valid token (MCP_AUTH_MODE=required): see securityOf. */
  tokenRequired?: boolean;
  /**
   * The contents' tools' JSON Schemas, made when the deployment was built (published-schemas.ts),
   * so none is converted at start-up. Used for the tools given at construction only: a tool
   * added at run time is converted then, as it may differ from the one built under its name.
   */
  schemas?: PublishedSchemas;
}

export class Registry {
  private readonly tools = new Map<string, CompiledTool>();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly templates: CompiledTemplate[] = [];
  private readonly prompts = new Map<string, PromptDefinition>();
  private readonly listeners = new Set<(kind: ListKind) => void>();
  private cache: {
    tools?: Map<number, Page<Record<string, unknown>>>;
    resources?: Map<number, Page<Record<string, unknown>>>;
    templates?: Map<number, Page<Record<string, unknown>>>;
    prompts?: Map<number, Page<Record<string, unknown>>>;
  } = {};

  constructor(
    contents: RegistryContents = {},
    readonly pageSize = 100,
    private readonly options: RegistryOptions = {},
  ) {
    // The contents are the server's definition: a name or URI given twice is a mistake, refused.
    for (const t of contents.tools ?? []) this.putTool(t, "refuse", ownEntry(options.schemas, t.name));
    for (const r of contents.resources ?? []) this.putResource(r, "refuse");
    for (const t of contents.resourceTemplates ?? []) this.putTemplate(t);
    for (const p of contents.prompts ?? []) this.putPrompt(p, "refuse");
    this.checkBudgetNames();
    this.warm();
  }

  /**
   * A resource that spends a tool's budgets must name a tool of these contents: a misspelt name
   * would quietly spend only tools/call's budget, never the tool's own. Checked once, at
   * construction, where every tool is present (tools switched off later still name a budget).
   */
  private checkBudgetNames(): void {
    const named = [
      ...[...this.resources.values()].map((r) => [r.uri, r.spendsToolBudget] as const),
      ...this.templates.map((t) => [t.definition.uriTemplate, t.definition.spendsToolBudget] as const),
    ];
    for (const [uri, tool] of named) {
      if (tool !== undefined && !this.tools.has(tool)) throw new Error(`${uri} spends the budgets of tool "${tool}", which is not registered`);
    }
  }

  /** Subscribe to run-time changes (drives notifications/…/list_changed). */
  onChange(listener: (kind: ListKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Add a tool at run time, or replace the one of the same name; either way the list changed. */
  addTool(def: ToolDefinition): void {
    this.putTool(def, "replace");
    this.changed("tools");
  }

  removeTool(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changed("tools");
    return removed;
  }

  /** Add a resource at run time, or replace the one at the same URI. */
  addResource(def: ResourceDefinition): void {
    this.putResource(def, "replace");
    this.changed("resources");
  }

  /** Add a prompt at run time, or replace the one of the same name. */
  addPrompt(def: PromptDefinition): void {
    this.putPrompt(def, "replace");
    this.changed("prompts");
  }

  removePrompt(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.changed("prompts");
    return removed;
  }

  getTool(name: string): CompiledTool | undefined {
    return this.tools.get(name);
  }

  toolNames(): IterableIterator<string> {
    return this.tools.keys();
  }

  getPrompt(name: string): PromptDefinition | undefined {
    return this.prompts.get(name);
  }

  getTemplate(uriTemplate: string): CompiledTemplate | undefined {
    return this.templates.find((t) => t.definition.uriTemplate === uriTemplate);
  }

  findResource(uri: string): ResourceMatch | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { kind: "static", resource };
    for (const template of this.templates) {
      const variables = template.matcher.match(uri);
      if (variables) return { kind: "template", template, variables };
    }
    return undefined;
  }

  listTools(cursor?: unknown): Page<Record<string, unknown>> {
    this.cache.tools ??= paginate([...this.tools.values()].map((t) => t.descriptor).sort((a, b) => byName(a as { name: string }, b as { name: string })), this.pageSize);
    return pageAt(this.cache.tools, cursor);
  }

  /** The tools/list result for a page, built and serialized once per registry change. */
  listToolsResult(cursor?: unknown): Record<string, unknown> {
    const page = this.listTools(cursor);
    page.result ??= preserialize({ tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    return page.result;
  }

  listResources(cursor?: unknown): Page<Record<string, unknown>> {
    this.cache.resources ??= paginate(
      [...this.resources.values()]
        .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
        .map((r) =>
          compact({
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mimeType: r.mimeType,
            size: r.size,
            annotations: r.annotations,
            icons: r.icons,
            _meta: r.meta,
          }),
        ),
      this.pageSize,
    );
    return pageAt(this.cache.resources, cursor);
  }

  listResourceTemplates(cursor?: unknown): Page<Record<string, unknown>> {
    this.cache.templates ??= paginate(this.templates.map((t) => t.descriptor), this.pageSize);
    return pageAt(this.cache.templates, cursor);
  }

  listPrompts(cursor?: unknown): Page<Record<string, unknown>> {
    this.cache.prompts ??= paginate(
      [...this.prompts.values()].sort(byName).map((p) =>
        compact({
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: promptArguments(p),
          icons: p.icons,
          _meta: p.meta,
        }),
      ),
      this.pageSize,
    );
    return pageAt(this.cache.prompts, cursor);
  }

  private putTool(def: ToolDefinition, same: SameKey, schemas?: PublishedToolSchemas): void {
    const compiled = compileTool(def, this.options.tokenRequired === true, schemas);
    if (same === "refuse" && this.tools.has(def.name)) refuseDuplicate(`Tool ${def.name}`);
    this.tools.set(def.name, compiled);
    // One definition: the tool brings its widget's resource along. Tools that render in one
    // widget bring one resource (widgetResource is made once per widget), registered once.
    if (def.ui?.widget) {
      const resource = widgetResource(def.ui.widget);
      if (this.resources.get(resource.uri) !== resource) this.putResource(resource, same);
    }
  }

  private putResource(def: ResourceDefinition, same: SameKey): void {
    checkResourceUri(def.uri);
    checkName(`Resource ${def.uri}`, def.name);
    if (same === "refuse" && this.resources.has(def.uri)) refuseDuplicate(`Resource ${def.uri}`);
    this.resources.set(def.uri, def);
  }

  /** Templates come only with the contents: there is nothing to replace. */
  private putTemplate(def: ResourceTemplateDefinition): void {
    checkTemplateUri(def.uriTemplate);
    checkName(`Resource template ${def.uriTemplate}`, def.name);
    if (this.getTemplate(def.uriTemplate)) refuseDuplicate(`Resource template ${def.uriTemplate}`);
    const descriptor = compact({
      uriTemplate: def.uriTemplate,
      name: def.name,
      title: def.title,
      description: def.description,
      mimeType: def.mimeType,
      annotations: def.annotations,
      icons: def.icons,
      _meta: def.meta,
    });
    this.templates.push({ definition: def, matcher: compileUriTemplate(def.uriTemplate), descriptor });
    this.templates.sort((a, b) => byName(a.definition, b.definition));
  }

  private putPrompt(def: PromptDefinition, same: SameKey): void {
    checkName(`Prompt ${JSON.stringify(def.name)}`, def.name);
    if (same === "refuse" && this.prompts.has(def.name)) refuseDuplicate(`Prompt ${def.name}`);
    this.prompts.set(def.name, def);
  }

  private warm(): void {
    this.listTools();
    this.listResources();
    this.listResourceTemplates();
    this.listPrompts();
  }

  private changed(kind: ListKind): void {
    this.cache = {};
    this.warm();
    for (const listener of this.listeners) listener(kind);
  }
}
