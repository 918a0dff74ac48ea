import { McpError } from "../../jsonrpc";
import type { RequestMeta } from "../runtime/handler-context";

/**
 * The request's `_meta` as handlers see it. The schema of every revision makes `_meta` an object
 * (basic/index "_meta") whose `progressToken` is a string or a number: anything else is -32602,
 * not a request run as if it had none.
 */
export function readRequestMeta(params: Record<string, unknown> | undefined): RequestMeta {
  const meta = params?._meta;
  if (meta === undefined) return {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw McpError.invalidParams("Invalid params: _meta must be an object", [{ path: ["_meta"], message: "Expected object" }]);
  }
  const m = meta as RequestMeta;
  if (m.progressToken !== undefined && typeof m.progressToken !== "string" && typeof m.progressToken !== "number") {
    throw McpError.invalidParams("Invalid params: _meta.progressToken must be a string or a number", [
      { path: ["_meta", "progressToken"], message: "Expected string or number" },
    ]);
  }
  return m;
}
