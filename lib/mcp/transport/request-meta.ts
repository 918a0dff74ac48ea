import { McpError } from "../../jsonrpc";
import type { RequestMeta } from "../runtime/handler-context";

/** The request's `_meta` as handlers see it; `progressToken` must be a string or a number. */
export function readRequestMeta(params: Record<string, unknown> | undefined): RequestMeta {
  const meta = params?._meta;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return {};
  const m = meta as RequestMeta;
  if (m.progressToken !== undefined && typeof m.progressToken !== "string" && typeof m.progressToken !== "number") {
    throw McpError.invalidParams("Invalid params: _meta.progressToken must be a string or a number", [
      { path: ["_meta", "progressToken"], message: "Expected string or number" },
    ]);
  }
  return m;
}
