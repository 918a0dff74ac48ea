import type { z } from "zod";
import type { CacheHint } from "../protocol/cache-hint";
import type { HandlerContext } from "../runtime/handler-context";
import type { SecurityScheme } from "../policy/access";
import type { ToolUi } from "./widget-definition";
import type { TaskSupport } from "../tasks/wire";
import type {
  Annotations,
  CallToolResult,
  GetPromptResult,
  Icon,
  Meta,
  ResourceContents,
  ToolAnnotations,
} from "../protocol/types";

/**
 * Suggest values for one argument (server/utilities/completion). At most 100 are sent. `ctx` is
 * the caller's context: suggestions drawn from a user's data must be scoped by `ctx.auth`.
 */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; ctx: HandlerContext },
) => readonly string[] | Promise<readonly string[]>;

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

/**
 * What a handler returns. With an `output`, a successful result carries structuredContent of
 * that shape (the core checks it, and answers -32603 when it does not match); an isError result
 * carries the error envelope instead (toolErrorResult). The output side of the schema, as the
 * published outputSchema describes it (a `.default()` field is present). Without one, any
 * CallToolResult.
 * `undefined` is "no output"; the union of both (a definition whose types are forgotten, as the
 * registry holds it) is any CallToolResult.
 */
export type ToolResult<O extends AnyObjectSchema | undefined> = O extends AnyObjectSchema
  ? (Omit<CallToolResult, "structuredContent"> & { structuredContent: z.output<O> }) | (CallToolResult & { isError: true })
  : CallToolResult;

export interface ToolDefinition<I extends AnyObjectSchema = AnyObjectSchema, O extends AnyObjectSchema | undefined = AnyObjectSchema | undefined> {
  /** 1–128 characters of A–Z a–z 0–9 _ - . (server/tools §tool names, 2025-11-25). */
  name: string;
  title?: string;
  description: string;
  input: I;
  /**
   * When set, structuredContent is validated against it and `outputSchema` is published, and the
   * handler's successful results must carry structuredContent of its type (ToolResult).
   */
  output?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Host metadata (`openai/*`, …) published in the descriptor's `_meta`. */
  meta?: Meta;
  /**
   * Its widget, visibility and status lines, published in both MCP Apps and ChatGPT form
   * (`_meta.ui`, `openai/*`); the widget's resource is registered with the tool.
   */
  ui?: ToolUi;
  /**
   * Who may call it: `[{type: "noauth"}]` (the default) and/or `[{type: "oauth2", scopes}]`.
   * Published as `securitySchemes` and `_meta.securitySchemes`, and enforced before the handler runs.
   */
  security?: readonly SecurityScheme[];
  /**
   * Publish this JSON Schema as `inputSchema` instead of the one generated from `input`, for
   * keywords zod cannot express ($defs with $anchor, if/then/else). `input` still validates.
   */
  inputJsonSchema?: Record<string, unknown> & { type: "object" };
  /**
   * Durable tasks (io.modelcontextprotocol/tasks, docs/tasks.md): "optional" runs the call as a
   * task when the client negotiated the extension, "required" refuses other calls (-32021).
   * `taskStarts`: "at_once" (default) before the handler runs; "when_handler_asks" when the
   * handler calls `ctx.continueAsTask()`, after gathering input in ordinary rounds.
   */
  execution?: { taskSupport: TaskSupport; taskStarts?: "at_once" | "when_handler_asks" };
  handler: (args: z.output<I>, ctx: HandlerContext) => Promise<ToolResult<O>> | ToolResult<O>;
}

export interface ResourceDefinition {
  uri: string;
  /** Who may reuse a read of it, and for how long (2026-07-28 caching). Default: private, 0 ms. */
  cache?: CacheHint;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  meta?: Meta;
  /** Scopes a caller's token must carry to read it; none: anyone may. */
  scopes?: readonly string[];
  /** The tool whose work a read does: see ResourceTemplateDefinition.spendsToolBudget. */
  spendsToolBudget?: string;
  read: (ctx: HandlerContext) => Promise<ResourceContents[]> | ResourceContents[];
}

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  /** As for resources; applies to every resource read through the template. */
  cache?: CacheHint;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  meta?: Meta;
  /** Scopes a caller's token must carry to read through it or complete its variables. */
  scopes?: readonly string[];
  /**
   * A read that does a tool's work (a whole export) spends that tool's budgets, its own and
   * tools/call's, as calling it would (lib/mcp/policy/rate-limit.ts budgetCallOf); otherwise a
   * read spends the budget every other method shares, and the resource would be the way around the
   * tool's.
   */
  spendsToolBudget?: string;
  complete?: Record<string, Completer>;
  read: (uri: string, variables: Record<string, string>, ctx: HandlerContext) => Promise<ResourceContents[]> | ResourceContents[];
}

/** Prompt arguments are strings on the wire (server/prompts), so the schema is a string object. */
type PromptArgsSchema = z.ZodObject<Record<string, z.ZodType<string | undefined>>>;

export interface PromptDefinition<A extends PromptArgsSchema = PromptArgsSchema> {
  name: string;
  title?: string;
  description?: string;
  arguments?: A;
  icons?: Icon[];
  meta?: Meta;
  /** Scopes a caller's token must carry to get it or complete its arguments. */
  scopes?: readonly string[];
  complete?: Record<string, Completer>;
  get: (args: z.output<A>, ctx: HandlerContext) => Promise<GetPromptResult> | GetPromptResult;
}

/**
 * Identity helpers: they exist for inference, so a handler's `args` get the schema's type
 * without the caller spelling it out, and (defineTool with an `output`) its structuredContent
 * is checked against that output's type. Two signatures, so a tool without `output` has no type
 * left to infer for its result (a handler returning `new Promise(…)` still gets CallToolResult).
 */
export function defineTool<I extends AnyObjectSchema, O extends AnyObjectSchema>(definition: ToolDefinition<I, O> & { output: O }): ToolDefinition;
export function defineTool<I extends AnyObjectSchema>(definition: ToolDefinition<I, undefined>): ToolDefinition;
export function defineTool(definition: ToolDefinition<AnyObjectSchema, AnyObjectSchema | undefined>): ToolDefinition {
  return definition;
}

export function defineResource(definition: ResourceDefinition): ResourceDefinition {
  return definition;
}

export function defineResourceTemplate(definition: ResourceTemplateDefinition): ResourceTemplateDefinition {
  return definition;
}

export function definePrompt<A extends PromptArgsSchema>(definition: PromptDefinition<A>): PromptDefinition {
  return definition as unknown as PromptDefinition;
}
