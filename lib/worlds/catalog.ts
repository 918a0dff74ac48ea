import { Registry, type EndpointDefinition, type SecurityScheme } from "../mcp";
import type { Page } from "../mcp/registry/pagination";
import { worldcrafterServer } from "./server-definition";

/**
 * What the server offers, as plain data for the home page: read from the same compiled
 * descriptors tools/list, resources/list, resources/templates/list and prompts/list send, so the
 * page can never drift from the wire. Pure: no database, no endpoint, no network.
 */
export interface CatalogTool {
  name: string;
  title?: string;
  description?: string;
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  /** `noauth`: anyone may call it; `oauth2`: a token with these scopes. */
  security: SecurityScheme[];
  /** The widget template it renders in (`_meta.ui.resourceUri`, else `openai/outputTemplate`). */
  widget?: string;
  /** Hidden from the model: only its widget calls it (`_meta.ui.visibility: ["app"]`). */
  appOnly: boolean;
}

export interface CatalogResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface CatalogResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface CatalogPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

export interface CatalogPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: CatalogPromptArgument[];
}

export interface ServerCatalog {
  name: string;
  title?: string;
  version: string;
  description?: string;
  tools: CatalogTool[];
  resources: CatalogResource[];
  resourceTemplates: CatalogResourceTemplate[];
  prompts: CatalogPrompt[];
}

export interface CatalogOptions {
  /** Tools switched off from start-up (MCP_DISABLED_TOOLS): tools/list leaves them out too. */
  disabledTools?: readonly string[];
}

type Descriptor = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** Every page of a list, in the order the list method sends them. */
function allPages(list: (cursor?: unknown) => Page<Descriptor>): Descriptor[] {
  const items: Descriptor[] = [];
  let cursor: string | undefined;
  do {
    const page = list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

function securityOf(value: unknown): SecurityScheme[] {
  if (!Array.isArray(value)) return [];
  const schemes: SecurityScheme[] = [];
  for (const scheme of value) {
    if (!isRecord(scheme)) continue;
    if (scheme.type === "noauth") schemes.push({ type: "noauth" });
    else if (scheme.type === "oauth2") {
      const scopes = Array.isArray(scheme.scopes) ? scheme.scopes.filter((s): s is string => typeof s === "string") : [];
      schemes.push({ type: "oauth2", scopes });
    }
  }
  return schemes;
}

function widgetOf(meta: unknown): string | undefined {
  if (!isRecord(meta)) return undefined;
  const ui = meta.ui;
  return (isRecord(ui) ? text(ui.resourceUri) : undefined) ?? text(meta["openai/outputTemplate"]);
}

function appOnly(meta: unknown): boolean {
  if (!isRecord(meta) || !isRecord(meta.ui) || !Array.isArray(meta.ui.visibility)) return false;
  const visibility = meta.ui.visibility;
  return visibility.length > 0 && !visibility.includes("model");
}

function toolOf(d: Descriptor): CatalogTool {
  const annotations = isRecord(d.annotations) ? d.annotations : {};
  const meta = isRecord(d._meta) ? d._meta : {};
  return {
    name: text(d.name) ?? "",
    title: text(d.title) ?? text(annotations.title),
    description: text(d.description),
    readOnly: flag(annotations.readOnlyHint),
    destructive: flag(annotations.destructiveHint),
    idempotent: flag(annotations.idempotentHint),
    security: securityOf(d.securitySchemes ?? meta.securitySchemes),
    widget: widgetOf(d._meta),
    appOnly: appOnly(d._meta),
  };
}

function resourceOf(d: Descriptor): CatalogResource {
  return { uri: text(d.uri) ?? "", name: text(d.name) ?? "", title: text(d.title), description: text(d.description), mimeType: text(d.mimeType) };
}

function templateOf(d: Descriptor): CatalogResourceTemplate {
  return { uriTemplate: text(d.uriTemplate) ?? "", name: text(d.name) ?? "", title: text(d.title), description: text(d.description), mimeType: text(d.mimeType) };
}

function promptOf(d: Descriptor): CatalogPrompt {
  const args = Array.isArray(d.arguments) ? d.arguments.filter(isRecord) : [];
  return {
    name: text(d.name) ?? "",
    title: text(d.title),
    description: text(d.description),
    arguments: args.map((a) => ({ name: text(a.name) ?? "", description: text(a.description), required: a.required === true })),
  };
}

/** The lists' wire descriptors, every page, as tools/list, resources/list… send them. */
export interface RegistryLists {
  tools: Descriptor[];
  resources: Descriptor[];
  resourceTemplates: Descriptor[];
  prompts: Descriptor[];
}

/** `definition`'s lists compiled as the endpoint compiles them (without the tools switched off at start-up). */
export function registryLists(definition: EndpointDefinition = worldcrafterServer, options: CatalogOptions = {}): RegistryLists {
  const registry = new Registry(definition.contents);
  for (const name of options.disabledTools ?? []) registry.removeTool(name);
  return {
    tools: allPages((c) => registry.listTools(c)),
    resources: allPages((c) => registry.listResources(c)),
    resourceTemplates: allPages((c) => registry.listResourceTemplates(c)),
    prompts: allPages((c) => registry.listPrompts(c)),
  };
}

/** The catalog of `definition` (WorldCrafter by default), compiled as the endpoint compiles it. */
export function serverCatalog(definition: EndpointDefinition = worldcrafterServer, options: CatalogOptions = {}): ServerCatalog {
  const lists = registryLists(definition, options);
  const { info } = definition;
  return {
    name: info.name,
    title: info.title,
    version: info.version,
    description: info.description,
    tools: lists.tools.map(toolOf),
    resources: lists.resources.map(resourceOf),
    resourceTemplates: lists.resourceTemplates.map(templateOf),
    prompts: lists.prompts.map(promptOf),
  };
}
