import type { ZodType } from "zod";
import { McpError } from "../jsonrpc";

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
