import type { ZodType } from "zod";
import { McpError } from "../../jsonrpc";
import { cutText } from "../../text/cut-text";

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
  throw McpError.invalidParams(`Invalid ${what}`, issuesOf(result.error.issues));
}

function issuesOf(issues: readonly { path: PropertyKey[]; message: string }[]): IssueReport[] {
  return issues.map((issue) => ({ path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: issue.message }));
}

/**
 * Control characters (Unicode Cc) other than tab, line feed and carriage return: C0, DEL and C1.
 * Text never needs them; PostgreSQL refuses a NUL in text (22021), and C1's CSI (U+009B) is a
 * terminal escape in an export read with `cat`. They are refused at the edge instead (-32602).
 */
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The message every refused control character gets, wherever it is found. */
export const CONTROL_CHARACTERS_MESSAGE = "Control characters are not allowed";

/**
 * A lone surrogate: JSON can escape one (`"\ud800"`), though receivers' handling of it is
 * "unpredictable" (RFC 8259 §8.2). It is no Unicode scalar value (Unicode §3.9, D76), so UTF-8 has
 * no form for it and storing it would silently turn it into U+FFFD. Refused like a control character.
 */
export const LONE_SURROGATES_MESSAGE = "Unpaired surrogates are not allowed (a string must be Unicode text)";

/**
 * Why `text` may not be stored as text — a forbidden control character, a lone surrogate — or
 * undefined when it may. isWellFormed is native, and immediate for strings V8 keeps one byte per
 * character (most).
 */
function textProblem(text: string): string | undefined {
  if (FORBIDDEN_CONTROL.test(text)) return CONTROL_CHARACTERS_MESSAGE;
  return text.isWellFormed() ? undefined : LONE_SURROGATES_MESSAGE;
}

/** The first string (or object key) inside `value` that is not plain text: where, and why. */
export function forbiddenTextIssue(value: unknown, path: (string | number)[] = []): IssueReport | undefined {
  const found = forbiddenTextAt(value, 0);
  return found ? { path: [...path, ...found.reversePath.reverse()], message: found.message } : undefined;
}

/** Where forbidden text was found, innermost key first; the message says what it was. */
interface Found {
  message: string;
  reversePath: (string | number)[];
}

/**
 * The same search, with nothing allocated unless something is found: it runs on every tool
 * call's arguments, which are almost always clean.
 */
function forbiddenTextAt(value: unknown, depth: number): Found | undefined {
  if (typeof value === "string") {
    const message = textProblem(value);
    return message ? { message, reversePath: [] } : undefined;
  }
  if (depth > 64 || typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenTextAt(value[i], depth + 1);
      if (found) {
        found.reversePath.push(i);
        return found;
      }
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  // Object.keys: the own enumerable string keys, in Object.entries' order.
  for (const key of Object.keys(record)) {
    const message = textProblem(key);
    if (message) return { message, reversePath: [key] };
    const found = forbiddenTextAt(record[key], depth + 1);
    if (found) {
      found.reversePath.push(key);
      return found;
    }
  }
  return undefined;
}

/** The outcome of checking client-chosen arguments: zod's own success result, or the issues found. */
export type ArgumentsCheck<T> = { success: true; data: T } | { success: false; issues: IssueReport[] };

/**
 * Check client-chosen arguments (tools, prompts): every string in them — whatever its schema —
 * free of forbidden control characters and lone surrogates, then the schema itself. Schemas of
 * single-line fields refuse tab and newlines too (lib/worlds/tools/data/shared.ts). Nothing is thrown: a tool call
 * reports the issues as a protocol error or as a tool result, depending on the revision.
 */
export function checkArguments<T>(schema: ZodType<T>, value: unknown): ArgumentsCheck<T> {
  const forbidden = forbiddenTextIssue(value);
  if (forbidden) return { success: false, issues: [forbidden] };
  const result = schema.safeParse(value);
  // zod's success result is returned as is: no wrapper per call on the hot path.
  if (result.success) return result;
  return { success: false, issues: issuesOf(result.error.issues) };
}

/** checkArguments, with the issues thrown as -32602 Invalid params. */
export function parseArgumentsOrInvalidParams<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const checked = checkArguments(schema, value);
  if (checked.success) return checked.data;
  throw McpError.invalidParams(`Invalid ${what}`, checked.issues);
}

/** At most this many issues are spelled out in a message; the rest are counted. */
const ISSUES_IN_MESSAGE = 10;
/** An issue's line is cut here: a path or a message may quote a client's key (zod's unrecognized keys). */
const ISSUE_CHARS = 300;

const bounded = (line: string): string => (line.length > ISSUE_CHARS ? `${cutText(line, ISSUE_CHARS)}…` : line);

/**
 * Issues as one line for a reader (a model reading a tool error): "style: Invalid option…; count:
 * Too big…". The root is named "(arguments)"; long lists end with how many were left out.
 */
export function describeIssues(issues: readonly IssueReport[]): string {
  const shown = issues.slice(0, ISSUES_IN_MESSAGE).map((issue) => bounded(`${issue.path.length === 0 ? "(arguments)" : issue.path.join(".")}: ${issue.message}`));
  const more = issues.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
