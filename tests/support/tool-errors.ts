/**
 * The `{ id, message }` of an `invalid_argument` isError tool result (the envelope of
 * lib/mcp/runtime/tool-error.ts): arguments the tool's schema refused, from 2025-11-25 on.
 * Undefined for any other answer.
 */
export function invalidArgumentOf(result: unknown): { id: string; message: string } | undefined {
  const r = result as { isError?: unknown; structuredContent?: { error?: { code?: unknown; id?: unknown; message?: unknown } } } | undefined;
  const error = r?.structuredContent?.error;
  if (r?.isError !== true || error?.code !== "invalid_argument" || typeof error.id !== "string" || typeof error.message !== "string") return undefined;
  return { id: error.id, message: error.message };
}
