import type { ZodType } from "zod";
import { McpError } from "../../jsonrpc";

export interface IssueReport {
  path: (string | number)[];
  message: string;
}

/**
 * Validate input with zod or throw -32602 Invalid params whose `data` lists each issue's path
 * and message (the shape seed 001 shows), so a model or developer can fix the exact field.
 */
export function parseOrInvalidParams<T>(schema: ZodType<T>, value: unknown, what = "params"): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: IssueReport[] = result.error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: issue.message,
  }));
  throw McpError.invalidParams(`Invalid ${what}`, issues);
}

/**
 * C0 control characters other than tab, line feed and carriage return. Text never needs them,
 * and PostgreSQL refuses a NUL in text (22021): they are refused at the edge instead (-32602).
 */
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** The message every refused control character gets, wherever it is found. */
export const CONTROL_CHARACTERS_MESSAGE = "Control characters are not allowed";

/** Whether `text` is free of control characters that no text field allows. */
export function isPlainText(text: string): boolean {
  return !FORBIDDEN_CONTROL.test(text);
}

/** The path of the first string (or object key) inside `value` that carries a forbidden control character. */
export function controlCharacterPath(value: unknown, path: (string | number)[] = [], depth = 0): (string | number)[] | undefined {
  const found = controlCharacterAt(value, depth);
  return found ? [...path, ...found.reverse()] : undefined;
}

/**
 * The same search, innermost key first, with nothing allocated unless something is found: it
 * runs on every tool call's arguments, which are almost always clean.
 */
function controlCharacterAt(value: unknown, depth: number): (string | number)[] | undefined {
  if (typeof value === "string") return isPlainText(value) ? undefined : [];
  if (depth > 64 || typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = controlCharacterAt(value[i], depth + 1);
      if (found) {
        found.push(i);
        return found;
      }
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  // Object.keys: the own enumerable string keys, in Object.entries' order.
  for (const key of Object.keys(record)) {
    if (!isPlainText(key)) return [key];
    const found = controlCharacterAt(record[key], depth + 1);
    if (found) {
      found.push(key);
      return found;
    }
  }
  return undefined;
}

/**
 * Validate client-chosen arguments (tools, prompts): every string in them — whatever its
 * schema — free of forbidden control characters, then the schema itself. Schemas of single-line
 * fields refuse tab and newlines too (lib/worlds/tools/data/shared.ts).
 */
export function parseArgumentsOrInvalidParams<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const path = controlCharacterPath(value);
  if (path) throw McpError.invalidParams(`Invalid ${what}`, [{ path, message: CONTROL_CHARACTERS_MESSAGE }] satisfies IssueReport[]);
  return parseOrInvalidParams(schema, value, what);
}
