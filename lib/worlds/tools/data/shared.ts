import { z } from "zod";
import { ToolError, toolErrorResult, type CallToolResult, type HandlerContext, type Meta, type ToolAnnotations } from "../../../mcp";
import { narrate } from "../../i18n/narration";
import type { CursorKey, RowPage } from "../../data/cursor";
import { singleLine, storedText } from "../../single-line";
import { cutText } from "../../../text/cut-text";
import { FIELD_LIMITS } from "../../field-limits";

/** Pieces every WorldCrafter data tool shares: field limits, annotations, host metadata, results. */

const line = singleLine;

export const Id = line().trim().min(1).max(FIELD_LIMITS.id);
export const Name = line().trim().min(1).max(FIELD_LIMITS.name);
export const Theme = line().trim().min(1).max(FIELD_LIMITS.theme);
export const ShortText = line().trim().max(FIELD_LIMITS.shortText);
export const LongText = storedText().max(FIELD_LIMITS.longText);
export const Cursor = z.string().min(1).max(200).optional().describe("nextCursor of the previous page; omit for the first page");
export const Limit = z.number().int().min(1).max(50).default(20).describe("Page size (1-50)");
export const Traits = z.array(line().trim().min(1).max(FIELD_LIMITS.trait)).max(FIELD_LIMITS.traits);

const base = { openWorldHint: false } as const;
export const READ_ONLY: ToolAnnotations = { ...base, readOnlyHint: true, destructiveHint: false, idempotentHint: true };
/** Adds a row: never destroys anything, but each call adds another one. */
export const CREATES: ToolAnnotations = { ...base, readOnlyHint: false, destructiveHint: false, idempotentHint: false };
/** Overwrites fields (the old values are gone), with the same outcome however often it is repeated. */
export const OVERWRITES: ToolAnnotations = { ...base, readOnlyHint: false, destructiveHint: true, idempotentHint: true };
export const DELETES: ToolAnnotations = { ...base, readOnlyHint: false, destructiveHint: true, idempotentHint: true };

/**
 * Keys of the widget-only `_meta` of results (seed 002 §three response payloads): what a widget
 * needs beyond the concise structuredContent — full text, previews — and the model never reads.
 */
export const WidgetKey = {
  World: "worldcrafter/world",
  Character: "worldcrafter/character",
  Query: "worldcrafter/query",
} as const;

/**
 * The `_meta` of a result that ends its widget's purpose (a deleted world): ChatGPT closes the
 * widget (seed 003, `openai/closeWidget`); MCP Apps widgets call `requestClose` themselves.
 */
export const CLOSE_WIDGET: Meta = { "openai/closeWidget": true };

/** An update that names no field: an isError result the model can correct. */
export function nothingToUpdate(ctx: Pick<HandlerContext, "locale">, fields: string[]): CallToolResult & { isError: true } {
  return toolErrorResult("invalid_argument", narrate(ctx).nothingToUpdate(fields));
}

/** structuredContent stays under this many bytes of JSON (issue 4: < 10 KB). */
export const STRUCTURED_BUDGET = 9_500;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** A successful result; its structuredContent keeps its type, which the tool's `output` checks (defineTool). */
export function result<S extends Record<string, unknown>>(text: string, structuredContent: S, meta?: Meta): CallToolResult & { structuredContent: S } {
  if (jsonBytes(structuredContent) > STRUCTURED_BUDGET) throw new ToolError("Result too large; narrow the request", "too_large");
  return { content: [{ type: "text", text }], structuredContent, ...(meta ? { _meta: meta } : {}) };
}

/**
 * One record whose long text fields are cut (halving) until it fits the budget; the cut fields are
 * named in `truncated`, so the model knows to read them elsewhere.
 */
export function fitRecord<T extends Record<string, unknown>>(record: T, longFields: (keyof T & string)[]): T & { truncated?: string[] } {
  let out: Record<string, unknown> = { ...record };
  const cut: string[] = [];
  for (const field of longFields) {
    while (jsonBytes(out) > STRUCTURED_BUDGET) {
      const value = out[field];
      if (typeof value !== "string" || value.length === 0) break;
      out = { ...out, [field]: cutText(value, Math.floor(value.length / 2)) };
      if (!cut.includes(field)) cut.push(field);
    }
  }
  return (cut.length ? { ...out, truncated: cut } : out) as T & { truncated?: string[] };
}

/**
 * A page of summaries that fits the budget: items are dropped from the end (and the cursor moved
 * back to the last one kept) until the JSON fits.
 */
export function fitPage<R extends CursorKey, S, W extends Record<string, unknown>>(
  { items: rows, nextCursor, cursorAfter }: RowPage<R>,
  summarize: (row: R) => S,
  wrap: (items: S[], nextCursor: string | undefined) => W,
): { structured: W; count: number; hasMore: boolean } {
  let kept = rows.length;
  let cursor = nextCursor;
  for (;;) {
    const structured = wrap(rows.slice(0, kept).map(summarize), cursor);
    if (jsonBytes(structured) <= STRUCTURED_BUDGET || kept <= 1) return { structured, count: kept, hasMore: cursor !== undefined };
    kept -= 1;
    cursor = cursorAfter(rows[kept - 1]!);
  }
}

export const excerpt = (text: string, max = 160) => (text.length > max ? `${cutText(text, max - 1)}…` : text);
export const iso = (d: Date) => d.toISOString();
